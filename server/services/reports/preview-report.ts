import { badRequest } from "../../errors.ts";
import type { AuthContext } from "../auth/auth-context.ts";
import type { ServiceContext } from "../context.ts";
import { visibleProject } from "../field/lookup.ts";
import { buildReportContent } from "./build-content.ts";
import type { AnhReportContent } from "./content-schema.ts";
import { projectDay, reportBytes } from "./generate-report.ts";
import { isCalendarDate, localDateOf } from "./production-day.ts";
import { iso } from "./report-numbers.ts";
import { nextVersion } from "./report-version.ts";

/** A report no one has generated: no id of its own, so the nil UUID (RFC 9562 §5.9). */
export const PREVIEW_REPORT_ID = "00000000-0000-0000-0000-000000000000";

export type ReportPreview = {
  provisional: true;
  project_id: string;
  report_date: string;
  period_start: string;
  period_end: string;
  /** When the content was read: figures after this instant are not in it. */
  as_of: string;
  content: AnhReportContent;
};

/**
 * GET /anh/reports/preview: the content a report of `date` (default: today in the project's zone)
 * would have if generated now, through the same builder as generation (buildReportContent), with
 * the version, predecessor and chain link generation would give it. Nothing is stored, audited or
 * hashed. The day must have begun (400 otherwise); a closed day previews too, showing what
 * re-generating it would give. For an open day, completeness counts the whole day, as the report
 * will: the part not yet elapsed is missing so far.
 */
export async function previewReport(
  ctx: ServiceContext,
  auth: AuthContext,
  input: { project_id: string; date?: string | undefined },
): Promise<ReportPreview> {
  if (input.date !== undefined && !isCalendarDate(input.date)) {
    throw badRequest("date: must be a calendar date written YYYY-MM-DD");
  }
  const project = await visibleProject(ctx.store.field, auth, input.project_id);
  const now = ctx.clock.now();
  const date = input.date ?? localDateOf(now.getTime(), project.timezone);
  const day = projectDay(project, date);
  if (day.startMs > now.getTime()) {
    throw badRequest(`date: the production day ${date} (${project.timezone}) has not begun yet`);
  }

  await ctx.store.telemetry.settleRollups(project.id);
  // One transaction that writes nothing: the same snapshot for every section, as when generating.
  const content = await ctx.store.transaction(
    async (tx) => {
      const next = await nextVersion(tx.reports, project.id, day.date);
      return buildReportContent(tx, project, day, {
        id: next.pending?.id ?? PREVIEW_REPORT_ID,
        version: next.version,
        supersedes: next.supersedes,
        generatedAt: now,
        trigger: "on_demand",
        requestedBy: auth.userId,
        previousHash: next.previousHash,
      });
    },
    { snapshot: true },
  );
  // The figures a generated report could not carry (a sum overflowing a double) are a 409 here too.
  reportBytes(content, day.date);
  return {
    provisional: true,
    project_id: project.id,
    report_date: day.date,
    period_start: iso(day.startMs),
    period_end: iso(day.endMs),
    as_of: now.toISOString(),
    content,
  };
}
