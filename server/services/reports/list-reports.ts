import { seesAllProjects } from "../../../shared/roles.ts";
import type { AuthContext } from "../auth/auth-context.ts";
import type { ServiceContext } from "../context.ts";
import { visibleProject } from "../field/lookup.ts";
import { type ReportDto, toReportDto } from "./report-dto.ts";

/**
 * GET /anh/reports: every version of every report of the caller's projects (or of one project),
 * newest day first, then newest version first. Content is left out; GET /anh/reports/{id} has it.
 */
export async function listReports(
  ctx: ServiceContext,
  auth: AuthContext,
  projectId: string | undefined,
): Promise<ReportDto[]> {
  let scope: readonly string[] | undefined;
  if (projectId !== undefined) {
    await visibleProject(ctx.store.field, auth, projectId);
    scope = [projectId];
  } else if (!seesAllProjects(auth.role)) {
    scope = [...auth.projectIds];
  }
  // The content can be hundreds of kilobytes per report; a list never reads it.
  return (await ctx.store.reports.list(scope)).map(toReportDto);
}
