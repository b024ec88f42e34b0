import { randomUUID } from "node:crypto";
import type { InvoiceRow } from "../../store/rows.ts";
import type { StorePorts } from "../../store/store.ts";
import { invoiceAuditView } from "./billing-dto.ts";
import type { PlanName } from "./plans.ts";

type IssueInput = {
  projectId: string;
  period: string;
  plan: PlanName;
  amountCents: number;
  now: Date;
  /** Who caused it; null for the scheduler. */
  userId: string | null;
  reason: string;
};

/**
 * Issues the project's invoice for `period` as pending, unless one exists already (one invoice per
 * project and month, backed by a unique index). Call with the caller's transaction; audited there.
 */
export async function issueInvoice(tx: StorePorts, input: IssueInput): Promise<InvoiceRow | undefined> {
  const row = await tx.billing.insertInvoiceUnlessIssued({
    id: randomUUID(),
    projectId: input.projectId,
    period: input.period,
    plan: input.plan,
    amountCents: input.amountCents,
    status: "pending",
    issuedAt: input.now,
    paidAt: null,
  });
  if (!row) return undefined;
  await tx.audit.append({
    at: input.now,
    userId: input.userId,
    projectId: input.projectId,
    entity: "invoice",
    entityId: row.id,
    action: "create",
    before: null,
    after: { ...invoiceAuditView(row), reason: input.reason },
  });
  return row;
}
