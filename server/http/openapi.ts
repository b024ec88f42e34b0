import { z } from "@hono/zod-openapi";
import type { ErrorCodeName } from "../errors.ts";
import { UNSUPPORTED_MEDIA_TYPE_MESSAGE } from "./on-error.ts";

export const errorResponseSchema = z
  .object({
    error: z
      .string()
      .openapi({ description: "a stable code, e.g. ValidationFailed, Unauthorized, NotFound" }),
    message: z.string().openapi({ description: "for people; names the bad field on a 400" }),
    requires_2fa: z.boolean().optional().openapi({
      description: "only on the two-factor challenge of POST /api/auth/login (401 TwoFactorRequired)",
    }),
  })
  .openapi("ErrorResponse");

export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 415 | 416 | 426 | 429 | 503 | 504;

export type ErrorExample = { error: ErrorCodeName; message: string; requires_2fa?: true };

export const statusText: Record<ErrorStatus, string> = {
  400: "Invalid input",
  401: "Missing, invalid or expired token (or bad credentials)",
  403: "Insufficient permissions",
  404: "Not found (or outside the caller's projects)",
  409: "Conflict",
  413: "Payload too large",
  415: "Unsupported media type: the body must be application/json",
  416: "Range not satisfiable (Content-Range: bytes */<size> gives the size)",
  426: "Upgrade required",
  429: "Rate limited (see Retry-After)",
  503: "Not available yet (see Retry-After)",
  504: "The project's agent did not answer in time",
};

/** What the explorer shows for each status: a code that belongs to it (errors.ts, ErrorCode). */
export const defaultExample: Record<ErrorStatus, ErrorExample> = {
  400: { error: "ValidationFailed", message: "name: is required" },
  401: { error: "Unauthorized", message: "a bearer access token is required" },
  403: { error: "Forbidden", message: "your role does not allow this" },
  404: { error: "NotFound", message: "project not found" },
  409: { error: "Conflict", message: "the change conflicts with the current state" },
  413: { error: "PayloadTooLarge", message: "the request body must be at most 8 MiB" },
  415: { error: "UnsupportedMediaType", message: UNSUPPORTED_MEDIA_TYPE_MESSAGE },
  416: { error: "RangeNotSatisfiable", message: "the range starts after the file's last byte" },
  426: { error: "UpgradeRequired", message: "this endpoint only answers a WebSocket upgrade" },
  429: { error: "RateLimited", message: "too many attempts; retry in 42 s" },
  503: { error: "AgentNotBuilt", message: "no x86_64 agent binary has been built on this server" },
  504: { error: "AgentTimeout", message: "the project's agent did not answer within 10 s" },
};

/**
 * The JSON content of an error response: the shared ErrorResponse schema and an example right for
 * `status` (several, by code, when given more than one).
 */
export function errorContent(status: ErrorStatus, ...examples: ErrorExample[]) {
  const [only, ...more] = examples.length > 0 ? examples : [defaultExample[status]];
  const media =
    more.length === 0
      ? { schema: errorResponseSchema, example: only }
      : {
          schema: errorResponseSchema,
          examples: Object.fromEntries(examples.map((e) => [e.error, { summary: e.error, value: e }])),
        };
  return { "application/json": media };
}

/** The error responses of an operation, each with the shared ErrorResponse schema and its example. */
export function errorResponses<S extends ErrorStatus>(...statuses: S[]) {
  const out = {} as Record<S, { description: string; content: ReturnType<typeof errorContent> }>;
  for (const s of statuses) out[s] = { description: statusText[s], content: errorContent(s) };
  return out;
}

export function json<T extends z.ZodType>(schema: T, description: string) {
  return { description, content: { "application/json": { schema } } };
}

export function jsonBody<T extends z.ZodType>(schema: T) {
  return { body: { required: true, content: { "application/json": { schema } } } };
}

export const bearer = [{ bearerAuth: [] }];

export const uuidParam = (name: string) =>
  z.uuid({ error: `${name} must be a UUID` }).openapi({ param: { name, in: "path" } });

/** Convenience for services that want to name the code in a type position. */
export type { ErrorCodeName };
