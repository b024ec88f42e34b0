import type { MiddlewareHandler } from "hono";
import type { Permission } from "../../../shared/roles.ts";
import { requireAuth } from "../../http/auth.ts";
import type { AppEnv } from "../../http/env.ts";
import { authorize } from "../../services/auth/auth-context.ts";
import type { ServiceContext } from "../../services/context.ts";

/**
 * Route middleware: bearer authentication (401), then the permission (403), both before the
 * request validators: a caller who may not write learns nothing from a 400 about the body.
 */
export function guard(ctx: ServiceContext, permission: Permission): MiddlewareHandler<AppEnv>[] {
  const permissionCheck: MiddlewareHandler<AppEnv> = async (c, next) => {
    authorize(c.get("auth"), permission);
    await next();
  };
  return [requireAuth(ctx), permissionCheck];
}
