import { eq, sum } from "drizzle-orm";
import { invoices, subscriptions } from "../../store/sqlite/schema/index.ts";
import type { ServiceContext } from "../context.ts";
import { centsToUsd, PLANS } from "./plans.ts";

export type BillingSummaryDto = {
  total_revenue_usd: number;
  active_subscriptions: number;
  mrr_usd: number;
};

/**
 * GET /billing/admin/summary: revenue is the sum of paid invoices; an active subscription is a
 * project with a plan; MRR is the sum of their plans' monthly prices (overage excluded: it is not
 * recurring).
 */
export function billingSummary(ctx: ServiceContext): BillingSummaryDto {
  const paid = ctx.db
    .select({ cents: sum(invoices.amountCents) })
    .from(invoices)
    .where(eq(invoices.status, "paid"))
    .get();
  const subs = ctx.db.select({ plan: subscriptions.plan }).from(subscriptions).all();
  const mrrCents = subs.reduce((n, s) => n + PLANS[s.plan].monthlyPriceCents, 0);
  return {
    total_revenue_usd: centsToUsd(Number(paid?.cents ?? 0)),
    active_subscriptions: subs.length,
    mrr_usd: centsToUsd(mrrCents),
  };
}
