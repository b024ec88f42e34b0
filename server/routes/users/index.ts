import type { MiddlewareHandler } from "hono";
import { requireAuth } from "../../http/auth.ts";
import type { AppEnv } from "../../http/env.ts";
import { authorize } from "../../services/auth/auth-context.ts";
import type { ServiceContext } from "../../services/context.ts";
import { newRouter, type Router } from "../router.ts";
import { mountCreateUser } from "./create-user.ts";
import { mountGetUser } from "./get-user.ts";
import { mountListRoles } from "./list-roles.ts";
import { mountListUsers } from "./list-users.ts";
import { mountResetPassword } from "./reset-password.ts";
import { mountSetUserProjects } from "./set-user-projects.ts";
import { mountUpdateUser } from "./update-user.ts";

/**
 * Every /admin endpoint needs "users:manage" (superadmin, admin; spec §5.4: 403 otherwise).
 * Checked before the body is parsed, so a caller without the permission learns nothing
 * about the input format.
 */
const manageUsers: MiddlewareHandler<AppEnv> = async (c, next) => {
  authorize(c.get("auth"), "users:manage");
  await next();
};

/** /api/admin */
export function adminRoutes(ctx: ServiceContext): Router {
  const router = newRouter();
  router.use("*", requireAuth(ctx), manageUsers);
  mountListUsers(router, ctx);
  mountCreateUser(router, ctx);
  mountGetUser(router, ctx);
  mountUpdateUser(router, ctx);
  mountResetPassword(router, ctx);
  mountSetUserProjects(router, ctx);
  mountListRoles(router);
  return router;
}
