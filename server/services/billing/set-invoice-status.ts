import { eq } from "drizzle-orm";
import { notFound } from "../../errors.ts";
import { appendAudit } from "../../store/sqlite/append-audit.ts";
import { invoices } from "../../store/sqlite/schema/index.ts";
import { type AuthContext, canSeeProject } from "../auth/auth-context.ts";
import type { ServiceContext } from "../context.ts";
import { type InvoiceDto, invoiceAuditView, toInvoiceDto } from "./billing-dto.ts";

export type InvoiceStatus = (typeof invoices.$inferSelect)["status"];

/**
 * PATCH /billing/invoices/{id}/status. Spec §3: any invoice may move to any of the four states.
 * paid_at is set when the status becomes paid (kept if it already was), cleared otherwise.
 * Setting the status it already has changes nothing and writes no audit entry.
 */
export function setInvoiceStatus(
  ctx: ServiceContext,
  auth: AuthContext,
  invoiceId: string,
  status: InvoiceStatus,
): InvoiceDto {
  const now = ctx.clock.now();
  return ctx.db.transaction((tx) => {
    const before = tx.select().from(invoices).where(eq(invoices.id, invoiceId)).get();
    if (!before || !canSeeProject(auth, before.projectId)) throw notFound("invoice");
    if (before.status === status) return toInvoiceDto(before);
    const paidAt = status === "paid" ? (before.paidAt ?? now) : null;
    const after = tx
      .update(invoices)
      .set({ status, paidAt })
      .where(eq(invoices.id, invoiceId))
      .returning()
      .get();
    appendAudit(tx, {
      at: now,
      userId: auth.userId,
      projectId: before.projectId,
      entity: "invoice",
      entityId: invoiceId,
      action: "update",
      before: invoiceAuditView(before),
      after: invoiceAuditView(after),
    });
    return toInvoiceDto(after);
  });
}
