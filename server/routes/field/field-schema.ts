import { z } from "@hono/zod-openapi";
import { uuidParam } from "../../http/openapi.ts";

export const NAME_MAX = 200;

/**
 * Names and texts end up in MQTT payloads, CSV exports and regulator reports: no C0 control
 * characters or DEL (tab and line breaks are allowed in free text only).
 */
function hasControlCharacters(value: string, allowLineBreaks: boolean): boolean {
  for (const ch of value) {
    const code = ch.charCodeAt(0);
    if (allowLineBreaks && (ch === "\t" || ch === "\n" || ch === "\r")) continue;
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

/** A required name: trimmed, 1..200 characters. */
export const nameField = () =>
  z
    .string()
    .trim()
    .min(1, "must not be empty")
    .max(NAME_MAX, `must be at most ${NAME_MAX} characters`)
    .refine((v) => !hasControlCharacters(v, false), "must not contain control characters");

/** Optional text; null, empty or omitted means none (and PUT resets it to null). */
export const optionalTextField = (max: number) =>
  z
    .string()
    .trim()
    .max(max, `must be at most ${max} characters`)
    .refine((v) => !hasControlCharacters(v, true), "must not contain control characters")
    .nullable()
    .optional();

export const idParams = z.object({ id: uuidParam("id") });

export const deleted = { description: "Deleted" } as const;
