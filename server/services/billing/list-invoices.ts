import { desc, eq } from "drizzle-orm";
import { invoices } from "../../store/sqlite/schema/index.ts";
import type { AuthContext } from "../auth/auth-context.ts";
import type { ServiceContext } from "../context.ts";
import { type InvoiceDto, toInvoiceDto } from "./billing-dto.ts";
import { billingProject } from "./billing-project.ts";

/** GET /billing/invoices: the project's invoices, newest period first. */
export function listInvoices(ctx: ServiceContext, auth: AuthContext, projectId: string): InvoiceDto[] {
  billingProject(ctx.db, auth, projectId);
  return ctx.db
    .select()
    .from(invoices)
    .where(eq(invoices.projectId, projectId))
    .orderBy(desc(invoices.period))
    .all()
    .map(toInvoiceDto);
}
