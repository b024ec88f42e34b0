import type { ServiceContext } from "../../services/context.ts";
import { loginLimiters } from "../rate-limit.ts";
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
  const limiters = loginLimiters(ctx.config);
  mountSetup(router, ctx);
  mountLogin(router, ctx, limiters);
  mountRegister(router, ctx, limiters);
  mountRefresh(router, ctx);
  mountLogout(router, ctx);
  mountTwoFactorSetup(router, ctx);
  mountTwoFactorEnable(router, ctx);
  mountTwoFactorDisable(router, ctx, limiters);
  mountTwoFactorRecoveryCodes(router, ctx);
  return router;
}
