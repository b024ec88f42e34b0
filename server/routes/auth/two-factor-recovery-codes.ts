import { createRoute } from "@hono/zod-openapi";
import { requireAuth } from "../../http/auth.ts";
import { bearer, errorResponses, json, jsonBody } from "../../http/openapi.ts";
import { regenerateRecoveryCodes } from "../../services/auth/two-factor-recovery-codes.ts";
import type { ServiceContext } from "../../services/context.ts";
import type { Router } from "../router.ts";
import { recoveryCodesRequest, recoveryCodesResponse } from "./two-factor-schema.ts";

const route = createRoute({
  method: "post",
  path: "/2fa/recovery-codes",
  tags: ["Auth"],
  summary: "Replace the recovery codes",
  description:
    "Needs a TOTP code or an unused recovery code. Every earlier recovery code stops working. " +
    "401 TwoFactorFailed, RecoveryCodeInvalid or AccountLocked; 409 when two-factor is not enabled.",
  security: bearer,
  request: jsonBody(recoveryCodesRequest),
  responses: {
    200: json(recoveryCodesResponse, "New recovery codes"),
    ...errorResponses(400, 401, 409),
  },
});

export function mountTwoFactorRecoveryCodes(router: Router, ctx: ServiceContext): void {
  router.use(route.path, requireAuth(ctx));
  router.openapi(route, async (c) => {
    const codes = await regenerateRecoveryCodes(ctx, c.get("auth"), c.req.valid("json").code);
    return c.json({ recovery_codes: codes }, 200);
  });
}
