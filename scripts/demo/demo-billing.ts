import { z } from "zod";
import type { CaudalApi } from "./api-client.ts";

const invoiceList = z.array(z.object({ id: z.uuid(), status: z.string() }));
const invoice = z.object({ id: z.uuid(), status: z.string() });

/**
 * The demo is no customer: the pending invoices of its project (the plan's price, issued when the
 * project was created and at each new month) are cancelled, through the API a superadmin uses, so
 * the change is audited like any other. Runs at every start; returns how many it cancelled.
 */
export async function cancelDemoInvoices(api: CaudalApi, projectId: string): Promise<number> {
  const invoices = await api.call(
    "GET",
    `/api/billing/invoices?project_id=${encodeURIComponent(projectId)}`,
    200,
    invoiceList,
  );
  let cancelled = 0;
  for (const i of invoices.filter((i) => i.status === "pending")) {
    await api.call("PATCH", `/api/billing/invoices/${i.id}/status`, 200, invoice, { status: "cancelled" });
    cancelled++;
  }
  return cancelled;
}
