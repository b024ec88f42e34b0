import type { Hook } from "@hono/zod-openapi";
import type { ZodError } from "zod";
import { AppError } from "./errors.ts";

/** "field: message; other.field: message" — names every bad field. */
export function describeZodError(error: ZodError): string {
  return error.issues
    .map((i) => {
      const path = i.path.map(String).join(".");
      return path ? `${path}: ${i.message}` : i.message;
    })
    .join("; ");
}

/** zod-openapi's defaultHook: invalid input is a 400 with every bad field named, never a 500. */
// biome-ignore lint/suspicious/noExplicitAny: the hook is generic over every route's input and env
export const validationHook: Hook<any, any, any, any> = (result) => {
  if (!result.success) {
    throw new AppError("ValidationFailed", describeZodError(result.error as ZodError));
  }
};
