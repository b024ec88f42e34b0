import { createRoute } from "@hono/zod-openapi";
import { requireAuth } from "../../http/auth.ts";
import { bearer, errorResponses, json } from "../../http/openapi.ts";
import { assertMayVerifyAudit, verifyAuditChain } from "../../services/audit/verify-audit.ts";
import type { ServiceContext } from "../../services/context.ts";
import type { Router } from "../router.ts";
import { AUDIT_TAG, auditVerification } from "./schema.ts";

const route = createRoute({
  method: "get",
  path: "/verify",
  tags: [AUDIT_TAG],
  summary: "Verify the audit hash chain",
  description:
    "Recomputes every entry's SHA-256 in seq order and checks each links to the one before. " +
    "200 either way: `valid` says whether the chain is intact, `broken_at` names the first bad " +
    "entry (hash mismatch: edited; prev_hash mismatch or seq gap: an entry removed; truncated: " +
    "the newest removed). Superadmin and admin only.",
  security: bearer,
  responses: {
    200: json(auditVerification, "Verification result"),
    ...errorResponses(401, 403),
  },
});

export function mountVerifyAudit(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: requireAuth(ctx) }, async (c) => {
    assertMayVerifyAudit(c.get("auth"));
    return c.json(await verifyAuditChain(ctx), 200);
  });
}
