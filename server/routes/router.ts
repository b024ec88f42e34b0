import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../http/env.ts";
import { validationHook } from "../http/validation.ts";

export type Router = OpenAPIHono<AppEnv>;

/** A sub-router with the shared validation hook. */
export function newRouter(): Router {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
}
