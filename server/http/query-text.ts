import { z } from "@hono/zod-openapi";

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is its purpose.
const NO_CONTROL_CHARACTERS = /^[^\x00-\x1f\x7f]*$/;

/**
 * A free-text query filter (an entity kind, an id): 1 to `max` characters, none of them a C0
 * control character or DEL. No stored kind or id holds one, and PostgreSQL's text cannot hold NUL:
 * without this rule `?entity=%00` was a 500 there and an empty list on SQLite. The rule is a
 * pattern, so the OpenAPI document declares it.
 */
export const queryTextFilter = (max: number) =>
  z
    .string()
    .min(1, "must not be empty")
    .max(max, `must be at most ${max} characters`)
    .regex(NO_CONTROL_CHARACTERS, "must not contain control characters");
