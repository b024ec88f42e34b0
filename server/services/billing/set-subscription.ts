import { eq } from "drizzle-orm";
import { subscriptions } from "../../db/schema/index.ts";
import { appendAudit } from "../audit/append-audit.ts";
import type { AuthContext } from "../auth/auth-context.ts";
import type { ServiceContext } from "../context.ts";
import { type InvoiceDto, toInvoiceDto } from "./billing-dto.ts";
import { monthOf } from "./billing-period.ts";
import { billingProject } from "./billing-project.ts";
import { issueInvoiceIn } from "./issue-invoice.ts";
import { centsToUsd, PLANS, type PlanName } from "./plans.ts";

export type SubscriptionDto = {
  project_id: string;
  plan: PlanName;
  monthly_price_usd: number;
  started_at: string;
  updated_at: string;
  /** The invoice this call issued (the first assignment's current month), else null. */
  issued_invoice: InvoiceDto | null;
};

/**
 * PUT /billing/admin/subscriptions/{project_id}: assigns or changes the project's plan. The first
 * assignment issues the current month's invoice (the plan's monthly price) as pending when none
 * exists for that month. A change of plan takes effect for the next invoice; issued invoices are
 * not re-priced.
 */
export function setSubscription(
  ctx: ServiceContext,
  auth: AuthContext,
  projectId: string,
  plan: PlanName,
): SubscriptionDto {
  const now = ctx.clock.now();
  return ctx.db.transaction((tx) => {
    billingProject(tx, auth, projectId);
    const before = tx.select().from(subscriptions).where(eq(subscriptions.projectId, projectId)).get();
    const row = before
      ? tx
          .update(subscriptions)
          .set({ plan, updatedAt: now })
          .where(eq(subscriptions.projectId, projectId))
          .returning()
          .get()
      : tx
          .insert(subscriptions)
          .values({ projectId, plan, startedAt: now, updatedAt: now })
          .returning()
          .get();
    if (before?.plan !== plan) {
      appendAudit(tx, {
        at: now,
        userId: auth.userId,
        projectId,
        entity: "subscription",
        entityId: projectId,
        action: before ? "update" : "create",
        before: before ? { plan: before.plan } : null,
        after: { plan },
      });
    }
    const invoice = before
      ? undefined
      : issueInvoiceIn(tx, {
          projectId,
          period: monthOf(now.getTime()).period,
          plan,
          amountCents: PLANS[plan].monthlyPriceCents,
          now,
          userId: auth.userId,
          reason: "first subscription",
        });
    return {
      project_id: projectId,
      plan: row.plan,
      monthly_price_usd: centsToUsd(PLANS[row.plan].monthlyPriceCents),
      started_at: row.startedAt.toISOString(),
      updated_at: row.updatedAt.toISOString(),
      issued_invoice: invoice ? toInvoiceDto(invoice) : null,
    };
  });
}
