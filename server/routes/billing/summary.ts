import { createRoute } from "@hono/zod-openapi";
import { guard } from "../../http/guard.ts";
import { bearer, errorResponses, json } from "../../http/openapi.ts";
import { billingSummary } from "../../services/billing/billing-summary.ts";
import type { ServiceContext } from "../../services/context.ts";
import type { Router } from "../router.ts";
import { BILLING_TAG, billingSummarySchema } from "./schema.ts";

const route = createRoute({
  method: "get",
  path: "/admin/summary",
  tags: [BILLING_TAG],
  summary: "Revenue and subscriptions across all projects",
  description: "Superadmin only (spec §5.4); 403 for every other role.",
  security: bearer,
  responses: {
    200: json(billingSummarySchema, "Summary"),
    ...errorResponses(401, 403),
  },
});

export function mountBillingSummary(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "billing:admin") }, async (c) =>
    c.json(await billingSummary(ctx), 200),
  );
}
