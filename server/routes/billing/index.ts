import type { ServiceContext } from "../../services/context.ts";
import { newRouter, type Router } from "../router.ts";
import { mountInvoiceStatus } from "./invoice-status.ts";
import { mountListInvoices } from "./list-invoices.ts";
import { mountCreateSnapshot } from "./snapshot.ts";
import { mountSetSubscription } from "./subscription.ts";
import { mountBillingSummary } from "./summary.ts";
import { mountUsage } from "./usage.ts";

/** /api/billing: usage, invoices, plans and subscriptions. */
export function billingRoutes(ctx: ServiceContext): Router {
  const router = newRouter();
  mountUsage(router, ctx);
  mountListInvoices(router, ctx);
  mountInvoiceStatus(router, ctx);
  mountBillingSummary(router, ctx);
  mountSetSubscription(router, ctx);
  mountCreateSnapshot(router, ctx);
  return router;
}
