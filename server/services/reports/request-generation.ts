import { badRequest } from "../../errors.ts";
import type { AuthContext } from "../auth/auth-context.ts";
import type { ServiceContext } from "../context.ts";
import { visibleProject } from "../field/lookup.ts";
import { generateReport } from "./generate-report.ts";
import { isCalendarDate } from "./production-day.ts";
import { type ReportDto, toReportDto } from "./report-dto.ts";

/** POST /anh/reports/generate on behalf of a user: their project only, a real calendar date. */
export async function requestGeneration(
  ctx: ServiceContext,
  auth: AuthContext,
  input: { project_id: string; report_date: string },
): Promise<ReportDto> {
  if (!isCalendarDate(input.report_date)) {
    throw badRequest("report_date: must be a calendar date written YYYY-MM-DD");
  }
  await visibleProject(ctx.store.field, auth, input.project_id);
  const row = await generateReport(ctx, {
    projectId: input.project_id,
    reportDate: input.report_date,
    trigger: "on_demand",
    requestedBy: auth.userId,
  });
  return toReportDto(row);
}
