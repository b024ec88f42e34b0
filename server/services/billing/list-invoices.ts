import type { AuthContext } from "../auth/auth-context.ts";
import type { ServiceContext } from "../context.ts";
import { visibleProject } from "../field/lookup.ts";
import { type InvoiceDto, toInvoiceDto } from "./billing-dto.ts";

/** GET /billing/invoices: the project's invoices, newest period first. */
export async function listInvoices(
  ctx: ServiceContext,
  auth: AuthContext,
  projectId: string,
): Promise<InvoiceDto[]> {
  await visibleProject(ctx.store.field, auth, projectId);
  return (await ctx.store.billing.invoicesOf(projectId)).map(toInvoiceDto);
}
