import { z } from "@hono/zod-openapi";
import type { ErrorCodeName } from "./errors.ts";

export const errorResponseSchema = z
  .object({
    error: z.string().openapi({ example: "ValidationFailed" }),
    message: z.string().openapi({ example: "email: Invalid email address" }),
    requires_2fa: z.boolean().optional(),
  })
  .openapi("ErrorResponse");

const statusText: Record<number, string> = {
  400: "Invalid input",
  401: "Missing, invalid or expired token (or bad credentials)",
  403: "Insufficient permissions",
  404: "Not found (or outside the caller's projects)",
  409: "Conflict",
  413: "Payload too large",
  429: "Rate limited (see Retry-After)",
};

type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 429;

/** The error responses of an operation, each with the shared ErrorResponse schema. */
export function errorResponses<S extends ErrorStatus>(...statuses: S[]) {
  const out = {} as Record<
    S,
    { description: string; content: { "application/json": { schema: typeof errorResponseSchema } } }
  >;
  for (const s of statuses) {
    out[s] = {
      description: statusText[s] ?? "Error",
      content: { "application/json": { schema: errorResponseSchema } },
    };
  }
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
