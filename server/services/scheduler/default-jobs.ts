import { pruneBatchRecords } from "../agents/batch-records.ts";
import { runMonthlyInvoices } from "../billing/monthly-invoice-job.ts";
import type { ServiceContext } from "../context.ts";
import { runDailyReports } from "../reports/daily-job.ts";
import { Scheduler } from "./scheduler.ts";

export { Scheduler };

/** The server's scheduler: daily ANH 0651 reports, monthly invoices, and old agent batch records. */
export function createScheduler(ctx: ServiceContext): Scheduler {
  return new Scheduler(ctx, [
    { name: "anh_daily_reports", run: runDailyReports },
    { name: "monthly_invoices", run: runMonthlyInvoices },
    { name: "agent_batch_records", run: pruneBatchRecords },
  ]);
}
