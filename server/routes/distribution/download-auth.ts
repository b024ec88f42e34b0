import type { MiddlewareHandler } from "hono";
import { requireAuth } from "../../http/auth.ts";
import type { AppEnv } from "../../http/env.ts";
import { authorize } from "../../services/auth/auth-context.ts";
import type { ServiceContext } from "../../services/context.ts";
import { assertCodeMayDownload, isEnrollmentCode } from "../../services/distribution/download-access.ts";

/**
 * `Authorization: Bearer <enrollment code>` (what an install script sends), or a user's access
 * token with config:write (supervisor and above, like the installers). Runs before the validators,
 * as guard() does: a caller without credentials learns nothing about the input.
 */
export function agentDownloadAuth(ctx: ServiceContext): MiddlewareHandler<AppEnv> {
  const userAuth = requireAuth(ctx);
  return async (c, next) => {
    const credential = /^Bearer\s+(\S+)$/i.exec(c.req.header("authorization") ?? "")?.[1];
    if (credential && isEnrollmentCode(credential)) {
      await assertCodeMayDownload(ctx, credential);
      return next();
    }
    return userAuth(c, async () => {
      authorize(c.get("auth"), "config:write");
      await next();
    });
  };
}
