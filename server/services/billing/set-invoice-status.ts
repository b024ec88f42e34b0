import { notFound } from "../../errors.ts";
import type { InvoiceRow } from "../../store/rows.ts";
import { type AuthContext, canSeeProject } from "../auth/auth-context.ts";
import type { ServiceContext } from "../context.ts";
import { type InvoiceDto, invoiceAuditView, toInvoiceDto } from "./billing-dto.ts";

export type InvoiceStatus = InvoiceRow["status"];

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
): Promise<InvoiceDto> {
  const now = ctx.clock.now();
  return ctx.store.transaction(async (tx) => {
    const before = await tx.billing.invoice(invoiceId);
    if (!before || !canSeeProject(auth, before.projectId)) throw notFound("invoice");
    if (before.status === status) return toInvoiceDto(before);
    const paidAt = status === "paid" ? (before.paidAt ?? now) : null;
    const after = await tx.billing.updateInvoiceStatus(invoiceId, status, paidAt);
    if (!after) throw notFound("invoice");
    await tx.audit.append({
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
