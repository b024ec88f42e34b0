import type { MiddlewareHandler } from "hono";
import type { Permission } from "../../../shared/roles.ts";
import { requireAuth } from "../../http/auth.ts";
import type { AppEnv } from "../../http/env.ts";
import { authorize } from "../../services/auth/auth-context.ts";
import type { ServiceContext } from "../../services/context.ts";

/**
 * Route middleware for the reporting, billing and dashboard routes: bearer authentication (401),
 * then the permission (403). It runs before the request validators, so a caller whose role may
 * not act learns nothing about the input format (an admin's PUT on a superadmin-only route is a
 * 403 whatever the body).
 */
export function guard(ctx: ServiceContext, permission: Permission): MiddlewareHandler<AppEnv>[] {
  const permissionCheck: MiddlewareHandler<AppEnv> = async (c, next) => {
    authorize(c.get("auth"), permission);
    await next();
  };
  return [requireAuth(ctx), permissionCheck];
}
