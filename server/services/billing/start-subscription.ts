import type { InvoiceRow, SubscriptionRow } from "../../store/rows.ts";
import type { StorePorts } from "../../store/store.ts";
import { monthOf } from "./billing-period.ts";
import { issueInvoice } from "./issue-invoice.ts";
import { PLANS, type PlanName } from "./plans.ts";

/**
 * Every project has a plan (spec §2: BillingUsage.plan is one of the three, never null). A project
 * starts on this one unless a superadmin sets another (PUT /billing/admin/subscriptions).
 */
export const DEFAULT_PLAN: PlanName = "starter";

type StartInput = {
  projectId: string;
  plan: PlanName;
  now: Date;
  /** Who caused it (the project's creator, or the superadmin setting the plan). */
  userId: string | null;
  reason: string;
};

/**
 * Starts a project's subscription with the caller's transaction: the subscription row, its audit
 * entry, and the current month's invoice (the plan's monthly price, billed in advance) as pending
 * unless one exists. Returns the row and the invoice it issued, if any.
 */
export async function startSubscription(
  tx: StorePorts,
  input: StartInput,
): Promise<{ row: SubscriptionRow; invoice: InvoiceRow | undefined }> {
  const { projectId, plan, now } = input;
  const row = await tx.billing.insertSubscription({ projectId, plan, startedAt: now, updatedAt: now });
  await tx.audit.append({
    at: now,
    userId: input.userId,
    projectId,
    entity: "subscription",
    entityId: projectId,
    action: "create",
    before: null,
    after: { plan },
  });
  const invoice = await issueInvoice(tx, {
    projectId,
    period: monthOf(now.getTime()).period,
    plan,
    amountCents: PLANS[plan].monthlyPriceCents,
    now,
    userId: input.userId,
    reason: input.reason,
  });
  return { row, invoice };
}
