import { createRoute } from "@hono/zod-openapi";
import { requireAuth } from "../../http/auth.ts";
import { bearer, errorResponses, json, jsonBody } from "../../http/openapi.ts";
import { enableTwoFactor } from "../../services/auth/two-factor-enable.ts";
import type { ServiceContext } from "../../services/context.ts";
import type { Router } from "../router.ts";
import { recoveryCodesResponse, twoFactorEnableRequest } from "./two-factor-schema.ts";

const route = createRoute({
  method: "post",
  path: "/2fa/enable",
  tags: ["Auth"],
  summary: "Confirm the pending secret and turn two-factor on",
  description:
    "The code must verify against the secret from POST /auth/2fa/setup; its time step counts as used, " +
    "so the same code cannot then log in. Returns 10 recovery codes, shown once. " +
    "401 TwoFactorFailed for a wrong code; 409 when two-factor is already on or no setup is pending.",
  security: bearer,
  request: jsonBody(twoFactorEnableRequest),
  responses: {
    200: json(recoveryCodesResponse, "Two-factor enabled"),
    ...errorResponses(400, 401, 409),
  },
});

export function mountTwoFactorEnable(router: Router, ctx: ServiceContext): void {
  router.use(route.path, requireAuth(ctx));
  router.openapi(route, async (c) => {
    const codes = await enableTwoFactor(ctx, c.get("auth"), c.req.valid("json").code);
    return c.json({ recovery_codes: codes }, 200);
  });
}
