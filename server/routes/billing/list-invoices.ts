import { createRoute, z } from "@hono/zod-openapi";
import { guard } from "../../http/guard.ts";
import { bearer, errorResponses, json } from "../../http/openapi.ts";
import { listInvoices } from "../../services/billing/list-invoices.ts";
import type { ServiceContext } from "../../services/context.ts";
import type { Router } from "../router.ts";
import { BILLING_TAG, invoiceSchema, projectQuery } from "./schema.ts";

const route = createRoute({
  method: "get",
  path: "/invoices",
  tags: [BILLING_TAG],
  summary: "A project's invoices",
  description: "Newest period first.",
  security: bearer,
  request: { query: projectQuery },
  responses: {
    200: json(z.array(invoiceSchema), "Invoices"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export function mountListInvoices(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "billing:read") }, async (c) =>
    c.json(await listInvoices(ctx, c.get("auth"), c.req.valid("query").project_id), 200),
  );
}
