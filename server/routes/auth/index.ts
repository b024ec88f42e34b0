import { RateLimiter } from "../../services/auth/rate-limit.ts";
import type { ServiceContext } from "../../services/context.ts";
import { newRouter, type Router } from "../router.ts";
import { mountLogin } from "./login.ts";
import { mountLogout } from "./logout.ts";
import { mountRefresh } from "./refresh.ts";
import { mountRegister } from "./register.ts";
import { mountSetup } from "./setup.ts";
import { mountTwoFactorDisable } from "./two-factor-disable.ts";
import { mountTwoFactorEnable } from "./two-factor-enable.ts";
import { mountTwoFactorRecoveryCodes } from "./two-factor-recovery-codes.ts";
import { mountTwoFactorSetup } from "./two-factor-setup.ts";

/** /api/auth */
export function authRoutes(ctx: ServiceContext): Router {
  const router = newRouter();
  const limiter = new RateLimiter(ctx.config.LOGIN_RATE_LIMIT);
  mountSetup(router, ctx);
  mountLogin(router, ctx, limiter);
  mountRegister(router, ctx, limiter);
  mountRefresh(router, ctx);
  mountLogout(router, ctx);
  mountTwoFactorSetup(router, ctx);
  mountTwoFactorEnable(router, ctx);
  mountTwoFactorDisable(router, ctx, limiter);
  mountTwoFactorRecoveryCodes(router, ctx);
  return router;
}
