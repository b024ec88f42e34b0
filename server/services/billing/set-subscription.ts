import { notFound } from "../../errors.ts";
import type { InvoiceRow, SubscriptionRow } from "../../store/rows.ts";
import type { AuthContext } from "../auth/auth-context.ts";
import type { ServiceContext } from "../context.ts";
import { visibleProject } from "../field/lookup.ts";
import { type InvoiceDto, toInvoiceDto } from "./billing-dto.ts";
import { centsToUsd, PLANS, type PlanName } from "./plans.ts";
import { startSubscription } from "./start-subscription.ts";

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
 * PUT /billing/admin/subscriptions/{project_id}: changes the project's plan. Every project has one
 * from its creation (starter unless set); a project that somehow has none gets its subscription
 * started here, which issues the current month's invoice. A change of plan takes effect for the
 * next invoice; issued invoices are not re-priced.
 */
export function setSubscription(
  ctx: ServiceContext,
  auth: AuthContext,
  projectId: string,
  plan: PlanName,
): Promise<SubscriptionDto> {
  const now = ctx.clock.now();
  return ctx.store.transaction(async (tx) => {
    await visibleProject(tx.field, auth, projectId);
    const before = await tx.billing.subscription(projectId);
    if (!before) {
      const started = await startSubscription(tx, {
        projectId,
        plan,
        now,
        userId: auth.userId,
        reason: "first subscription",
      });
      return toSubscriptionDto(started.row, started.invoice);
    }
    const row = await tx.billing.updatePlan(projectId, plan, now);
    if (!row) throw notFound("project");
    if (before.plan !== plan) {
      await tx.audit.append({
        at: now,
        userId: auth.userId,
        projectId,
        entity: "subscription",
        entityId: projectId,
        action: "update",
        before: { plan: before.plan },
        after: { plan },
      });
    }
    return toSubscriptionDto(row, undefined);
  });
}

function toSubscriptionDto(row: SubscriptionRow, invoice: InvoiceRow | undefined): SubscriptionDto {
  return {
    project_id: row.projectId,
    plan: row.plan,
    monthly_price_usd: centsToUsd(PLANS[row.plan].monthlyPriceCents),
    started_at: row.startedAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    issued_invoice: invoice ? toInvoiceDto(invoice) : null,
  };
}
