import { createRoute, z } from "@hono/zod-openapi";
import { guard } from "../../http/guard.ts";
import { bearer, errorResponses, json } from "../../http/openapi.ts";
import { listAudit } from "../../services/audit/list-audit.ts";
import type { ServiceContext } from "../../services/context.ts";
import type { Router } from "../router.ts";
import { AUDIT_TAG, auditEntrySchema, auditListQuery } from "./schema.ts";

const route = createRoute({
  method: "get",
  path: "/",
  tags: [AUDIT_TAG],
  summary: "Read the audit log",
  description:
    "The configuration and event log (API MPMS 21.1 §5), newest first. Requires audit:read " +
    "(superadmin, admin, supervisor). Superadmin and admin read every entry, including those " +
    "outside any project; a supervisor reads only entries of their projects.",
  security: bearer,
  request: { query: auditListQuery },
  responses: {
    200: json(z.array(auditEntrySchema), "Entries, newest first"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export function mountListAudit(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "audit:read") }, async (c) =>
    c.json(await listAudit(ctx, c.get("auth"), c.req.valid("query")), 200),
  );
}
