import { z } from "@hono/zod-openapi";
import { fastParseTelemetryBatch, fastParseTelemetryPayload } from "./fast-validate.ts";
import { telemetryBatchSchema, telemetryPayloadSchema } from "./schema.ts";

/**
 * What validates a request body: `fast` first; anything it does not accept goes to `schema`,
 * whose issues are passed on unchanged, so a 400 names every bad field exactly as `schema` alone
 * would. zod-openapi's validator calls safeParseAsync, where zod's own withParser/compile fast
 * paths stand aside, hence a transform. Only the route that serves requests uses it; the
 * OpenAPI document still shows `schema` (ingest.ts, ingest-batch.ts).
 */
export function bodyWithFastPath<T extends z.ZodType>(
  schema: T,
  fast: (input: unknown) => z.output<T> | undefined,
) {
  return z.unknown().transform((input, ctx): z.output<T> => {
    const parsed = fast(input);
    if (parsed !== undefined) return parsed;
    const result = schema.safeParse(input);
    if (result.success) return result.data;
    for (const { input: _input, ...issue } of result.error.issues) ctx.addIssue(issue);
    return z.NEVER;
  });
}

export const telemetryPayloadBody = bodyWithFastPath(telemetryPayloadSchema, fastParseTelemetryPayload);
export const telemetryBatchBody = bodyWithFastPath(telemetryBatchSchema, fastParseTelemetryBatch);
