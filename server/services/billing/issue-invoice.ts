import { randomUUID } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { appendAudit, type DbOrTx } from "../../store/sqlite/append-audit.ts";
import { invoices } from "../../store/sqlite/schema/index.ts";
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

export function hasInvoice(tx: DbOrTx, projectId: string, period: string): boolean {
  const row = tx
    .select({ id: invoices.id })
    .from(invoices)
    .where(and(eq(invoices.projectId, projectId), eq(invoices.period, period)))
    .get();
  return row !== undefined;
}

/**
 * Issues the project's invoice for `period` as pending, unless one exists already (one invoice per
 * project and month, backed by a unique index). Call inside the caller's transaction; audited there.
 */
export function issueInvoiceIn(tx: DbOrTx, input: IssueInput): typeof invoices.$inferSelect | undefined {
  if (hasInvoice(tx, input.projectId, input.period)) return undefined;
  const row = tx
    .insert(invoices)
    .values({
      id: randomUUID(),
      projectId: input.projectId,
      period: input.period,
      plan: input.plan,
      amountCents: input.amountCents,
      status: "pending",
      issuedAt: input.now,
      paidAt: null,
    })
    .returning()
    .get();
  appendAudit(tx, {
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
