import { eq } from "drizzle-orm";
import { badRequest, notFound } from "../../errors.ts";
import { projects } from "../../store/sqlite/schema/index.ts";
import { type AuthContext, canSeeProject } from "../auth/auth-context.ts";
import type { ServiceContext } from "../context.ts";
import { generateReport } from "./generate-report.ts";
import { isCalendarDate } from "./production-day.ts";
import { type ReportDto, toReportDto } from "./report-dto.ts";

/** POST /anh/reports/generate on behalf of a user: their project only, a real calendar date. */
export function requestGeneration(
  ctx: ServiceContext,
  auth: AuthContext,
  input: { project_id: string; report_date: string },
): ReportDto {
  if (!isCalendarDate(input.report_date)) {
    throw badRequest("report_date: must be a calendar date written YYYY-MM-DD");
  }
  const project = ctx.db
    .select({ id: projects.id })
    .from(projects)
    .where(eq(projects.id, input.project_id))
    .get();
  if (!project || !canSeeProject(auth, input.project_id)) throw notFound("project");
  const row = generateReport(ctx, {
    projectId: input.project_id,
    reportDate: input.report_date,
    trigger: "on_demand",
    requestedBy: auth.userId,
  });
  return toReportDto(row);
}
