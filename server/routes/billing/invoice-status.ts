import { createRoute } from "@hono/zod-openapi";
import { guard } from "../../http/guard.ts";
import { bearer, errorResponses, json, jsonBody } from "../../http/openapi.ts";
import { setInvoiceStatus } from "../../services/billing/set-invoice-status.ts";
import type { ServiceContext } from "../../services/context.ts";
import type { Router } from "../router.ts";
import { BILLING_TAG, invoiceIdParams, invoiceSchema, invoiceStatusRequest } from "./schema.ts";

const route = createRoute({
  method: "patch",
  path: "/invoices/{id}/status",
  tags: [BILLING_TAG],
  summary: "Set an invoice's status",
  description:
    "Any invoice may move to any of pending, paid, overdue, cancelled. paid_at is set when it becomes " +
    "paid and cleared otherwise. Requires admin or superadmin.",
  security: bearer,
  request: { params: invoiceIdParams, ...jsonBody(invoiceStatusRequest) },
  responses: {
    200: json(invoiceSchema, "The invoice"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export function mountInvoiceStatus(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "billing:write") }, async (c) =>
    c.json(
      await setInvoiceStatus(ctx, c.get("auth"), c.req.valid("param").id, c.req.valid("json").status),
      200,
    ),
  );
}
