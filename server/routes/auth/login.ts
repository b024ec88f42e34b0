import { createRoute } from "@hono/zod-openapi";
import { errorContent, errorResponses, json, jsonBody } from "../../http/openapi.ts";
import { login } from "../../services/auth/login.ts";
import type { ServiceContext } from "../../services/context.ts";
import { clientInfo } from "../client-info.ts";
import { enforceRateLimit, type LoginLimiters } from "../rate-limit.ts";
import type { Router } from "../router.ts";
import { loginRequest, loginResponse } from "./schema.ts";
import { loginBody, setRefreshCookie } from "./session-response.ts";

const route = createRoute({
  method: "post",
  path: "/login",
  tags: ["Auth"],
  summary: "Log in",
  description:
    "Email and password; with two-factor enabled also `totp_code` or `recovery_code`. Sets the refresh cookie. " +
    "Two-factor errors: TwoFactorRequired (with requires_2fa), TwoFactorFailed, RecoveryCodeInvalid, AccountLocked.",
  request: jsonBody(loginRequest),
  responses: {
    200: json(loginResponse, "Logged in"),
    ...errorResponses(400, 429),
    401: {
      description: "Bad credentials, a two-factor challenge (requires_2fa) or failure, or a locked account",
      content: errorContent(
        401,
        { error: "InvalidCredentials", message: "email or password is incorrect" },
        {
          error: "TwoFactorRequired",
          message: "a TOTP code or a recovery code is required",
          requires_2fa: true,
        },
        { error: "TwoFactorFailed", message: "the two-factor code is not valid" },
        { error: "RecoveryCodeInvalid", message: "the recovery code is not valid or was already used" },
        {
          error: "AccountLocked",
          message: "too many failed two-factor attempts; try again after 2025-03-11T15:30:00.000Z",
        },
      ),
    },
  },
});

export function mountLogin(router: Router, ctx: ServiceContext, limiters: LoginLimiters): void {
  router.openapi(route, async (c) => {
    const input = c.req.valid("json");
    const client = clientInfo(c);
    enforceRateLimit(limiters, ctx, client.ip, input.email);
    const result = await login(ctx, input, client);
    setRefreshCookie(c, ctx.config, result.refreshToken);
    return c.json(loginBody(result.accessToken, result.user.role, result.projects), 200);
  });
}
