import { createRoute } from "@hono/zod-openapi";
import { requireAuth } from "../../http/auth.ts";
import { bearer, errorResponses, json, jsonBody } from "../../http/openapi.ts";
import { disableTwoFactor } from "../../services/auth/two-factor-disable.ts";
import type { ServiceContext } from "../../services/context.ts";
import { clientInfo } from "../client-info.ts";
import { enforceRateLimit, type LoginLimiters } from "../rate-limit.ts";
import type { Router } from "../router.ts";
import { messageResponse } from "./schema.ts";
import { twoFactorDisableRequest } from "./two-factor-schema.ts";

const route = createRoute({
  method: "post",
  path: "/2fa/disable",
  tags: ["Auth"],
  summary: "Turn two-factor off",
  description:
    "Needs the password and a TOTP code or recovery code; erases the secret and the recovery codes. " +
    "401 InvalidCredentials (password), TwoFactorFailed, RecoveryCodeInvalid or AccountLocked; TOTP " +
    "failures count towards the login lockout. Password attempts share the login rate limit. " +
    "409 when two-factor is not enabled.",
  security: bearer,
  request: jsonBody(twoFactorDisableRequest),
  responses: {
    200: json(messageResponse, "Two-factor disabled"),
    ...errorResponses(400, 401, 409, 429),
  },
});

export function mountTwoFactorDisable(router: Router, ctx: ServiceContext, limiters: LoginLimiters): void {
  router.use(route.path, requireAuth(ctx));
  router.openapi(route, async (c) => {
    const auth = c.get("auth");
    // A stolen access token must not become an unlimited password oracle.
    enforceRateLimit(limiters, ctx, clientInfo(c).ip, auth.email);
    await disableTwoFactor(ctx, auth, c.req.valid("json"));
    return c.json({ message: "two-factor authentication disabled" }, 200);
  });
}
