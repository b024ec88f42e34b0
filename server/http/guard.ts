import type { MiddlewareHandler } from "hono";
import type { Permission } from "../../shared/roles.ts";
import { authorize } from "../services/auth/auth-context.ts";
import type { ServiceContext } from "../services/context.ts";
import { requireAuth } from "./auth.ts";
import type { AppEnv } from "./env.ts";

/**
 * Route middleware: bearer authentication (401), then every permission (403). It runs before the
 * request validators, so a caller whose role may not write learns nothing about the resource or
 * the body: an operador's PUT on any id is a 403.
 */
export function guard(ctx: ServiceContext, ...permissions: Permission[]): MiddlewareHandler<AppEnv>[] {
  const permissionCheck: MiddlewareHandler<AppEnv> = async (c, next) => {
    const auth = c.get("auth");
    for (const permission of permissions) authorize(auth, permission);
    await next();
  };
  return [requireAuth(ctx), permissionCheck];
}
