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
export async function billingSummary(ctx: ServiceContext): Promise<BillingSummaryDto> {
  const paidCents = await ctx.store.billing.paidRevenueCents();
  const subs = await ctx.store.billing.subscriptions();
  const mrrCents = subs.reduce((n, s) => n + PLANS[s.plan].monthlyPriceCents, 0);
  return {
    total_revenue_usd: centsToUsd(paidCents),
    active_subscriptions: subs.length,
    mrr_usd: centsToUsd(mrrCents),
  };
}
