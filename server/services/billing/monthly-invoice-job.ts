import type { ServiceContext } from "../context.ts";
import { monthOf } from "./billing-period.ts";
import { issueInvoice } from "./issue-invoice.ts";
import { activeDevicesIn, telemetryPointsIn } from "./measure-usage.ts";
import { overageCents, PLANS } from "./plans.ts";

export type MonthlyInvoicesResult = { issued: number; failed: number };

/**
 * The scheduler's billing pass (every minute): once a month has closed, each project with a plan
 * gets the new month's invoice, pending. It bills the plan's monthly price in advance plus the
 * closed month's overage in arrears (usage beyond the plan's inclusions, at the current plan's
 * rates) when the subscription was already running then. Idempotent: one invoice per project and
 * month. Projects are billed one transaction each, in the order their subscriptions started.
 */
export async function runMonthlyInvoices(ctx: ServiceContext): Promise<MonthlyInvoicesResult> {
  const now = ctx.clock.now();
  const current = monthOf(now.getTime());
  const closed = monthOf(now.getTime(), -1);
  const result: MonthlyInvoicesResult = { issued: 0, failed: 0 };
  for (const sub of await ctx.store.billing.subscriptions()) {
    try {
      const issued = await ctx.store.transaction(async (tx) => {
        if (await tx.billing.hasInvoice(sub.projectId, current.period)) return undefined;
        const plan = PLANS[sub.plan];
        const ranLastMonth = sub.startedAt.getTime() < closed.endMs;
        const overage = ranLastMonth
          ? overageCents(
              plan,
              await telemetryPointsIn(tx, sub.projectId, closed),
              await activeDevicesIn(tx, sub.projectId, closed, now.getTime()),
            )
          : 0;
        return issueInvoice(tx, {
          projectId: sub.projectId,
          period: current.period,
          plan: sub.plan,
          amountCents: plan.monthlyPriceCents + overage,
          now,
          userId: null,
          reason: ranLastMonth ? `month ${closed.period} closed` : "new month",
        });
      });
      if (issued) result.issued++;
    } catch (err) {
      result.failed++;
      ctx.logger.error("monthly invoice failed", {
        project_id: sub.projectId,
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }
  return result;
}
