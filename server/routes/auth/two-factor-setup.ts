import { createRoute } from "@hono/zod-openapi";
import { requireAuth } from "../../http/auth.ts";
import { bearer, errorResponses, json } from "../../http/openapi.ts";
import { beginTwoFactorSetup } from "../../services/auth/two-factor-setup.ts";
import type { ServiceContext } from "../../services/context.ts";
import type { Router } from "../router.ts";
import { twoFactorSetupResponse } from "./two-factor-schema.ts";

const route = createRoute({
  method: "post",
  path: "/2fa/setup",
  tags: ["Auth"],
  summary: "Start enabling two-factor authentication",
  description:
    "Issues a new TOTP secret (RFC 6238: SHA-1, 6 digits, 30 s) and its otpauth:// URI. Two-factor is " +
    "not on until POST /auth/2fa/enable confirms a code. Calling again replaces the pending secret. " +
    "409 when two-factor is already enabled.",
  security: bearer,
  responses: {
    200: json(twoFactorSetupResponse, "Pending secret issued"),
    ...errorResponses(401, 409),
  },
});

export function mountTwoFactorSetup(router: Router, ctx: ServiceContext): void {
  router.use(route.path, requireAuth(ctx));
  router.openapi(route, async (c) => c.json(await beginTwoFactorSetup(ctx, c.get("auth")), 200));
}
