import { randomUUID } from "node:crypto";
import type { ServiceContext } from "../context.ts";
import { generateReport } from "./generate-report.ts";
import { lastClosedDay } from "./production-day.ts";
import { auditView } from "./report-dto.ts";

/**
 * How long after a production day closes its report is generated. Agents forward buffered
 * readings every few seconds; this margin lets the last minutes of the day reach the rollups.
 * Meanwhile the day's report is listed as pending (hash null).
 */
export const GENERATION_DELAY_MS = 5 * 60_000;

export type DailyReportsResult = { pending: number; generated: number; failed: number };

/**
 * The scheduler's daily-report pass (every minute):
 * 1. each active project whose local day has closed and has no report for it (yesterday, in the
 *    project's time zone) gets a pending report row;
 * 2. each pending report whose day closed at least GENERATION_DELAY_MS ago is generated.
 * A project created after the day ended has no report for it. Days missed while the server was
 * down longer than a day are generated on demand (POST /api/anh/reports/generate).
 */
export async function runDailyReports(ctx: ServiceContext): Promise<DailyReportsResult> {
  const now = ctx.clock.now();
  const result: DailyReportsResult = { pending: 0, generated: 0, failed: 0 };
  const active = await ctx.store.field.activeProjects();
  for (const project of active) {
    try {
      const day = lastClosedDay(now.getTime(), project.timezone);
      if (day.endMs <= project.createdAt.getTime()) continue;
      if (await ctx.store.reports.hasDay(project.id, day.date)) continue;
      await ctx.store.transaction(async (tx) => {
        const row = await tx.reports.insert({
          id: randomUUID(),
          projectId: project.id,
          reportDate: day.date,
          periodStart: new Date(day.startMs),
          periodEnd: new Date(day.endMs),
          status: "pending",
          version: 1,
          createdAt: now,
        });
        await tx.audit.append({
          at: now,
          userId: null,
          projectId: project.id,
          entity: "anh_report",
          entityId: row.id,
          action: "create",
          before: null,
          after: { ...auditView(row), trigger: "scheduler" },
        });
      });
      result.pending++;
    } catch (err) {
      result.failed++;
      ctx.logger.error("daily report: could not open the day", {
        project_id: project.id,
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }

  const due = await ctx.store.reports.pendingDue(new Date(now.getTime() - GENERATION_DELAY_MS));
  for (const d of due) {
    try {
      const row = await generateReport(ctx, { ...d, trigger: "scheduler", requestedBy: null });
      result.generated++;
      ctx.logger.info("daily report generated", {
        project_id: d.projectId,
        report_date: d.reportDate,
        report_id: row.id,
        sha384: row.hashSha384,
      });
    } catch (err) {
      result.failed++;
      ctx.logger.error("daily report: generation failed", {
        project_id: d.projectId,
        report_date: d.reportDate,
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }
  return result;
}
