import type { Hook } from "@hono/zod-openapi";
import type { ZodError } from "zod";
import { AppError } from "../errors.ts";

/** The value at `path` in the input, or undefined when any step of it is missing. */
function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== "object") return undefined;
    value = Reflect.get(value, key);
  }
  return value;
}

/**
 * "field: message; other.field: message" — names every bad field. A field missing from `input` is
 * "is required" even where its schema chose another message (z.email("must be a valid…") gives its
 * message for a missing value too). Given the request `target`, problems with the whole body are
 * named "body".
 */
export function describeZodError(error: ZodError, input?: unknown, target?: string): string {
  const root = target === "json" ? "body" : target;
  return error.issues
    .map((i) => {
      const path = i.path.map(String).join(".");
      const missing =
        input !== undefined &&
        i.code === "invalid_type" &&
        i.path.length > 0 &&
        valueAt(input, i.path) === undefined;
      const message = missing ? "is required" : i.message;
      const field = path || root;
      return field ? `${field}: ${message}` : message;
    })
    .join("; ");
}

/** zod-openapi's defaultHook: invalid input is a 400 with every bad field named, never a 500. */
// biome-ignore lint/suspicious/noExplicitAny: the hook is generic over every route's input and env
export const validationHook: Hook<any, any, any, any> = (result) => {
  if (!result.success) {
    // @hono/zod-validator passes the input it validated along with the error.
    const input: unknown = "data" in result ? result.data : undefined;
    throw new AppError("ValidationFailed", describeZodError(result.error as ZodError, input, result.target));
  }
};
