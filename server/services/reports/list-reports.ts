import { and, desc, eq, getTableColumns, inArray, type SQL } from "drizzle-orm";
import { seesAllProjects } from "../../../shared/roles.ts";
import { notFound } from "../../errors.ts";
import { anhReports, projects } from "../../store/sqlite/schema/index.ts";
import { type AuthContext, canSeeProject } from "../auth/auth-context.ts";
import type { ServiceContext } from "../context.ts";
import { type ReportDto, toReportDto } from "./report-dto.ts";

/**
 * GET /anh/reports: every version of every report of the caller's projects (or of one project),
 * newest day first, then newest version first. Content is left out; GET /anh/reports/{id} has it.
 */
export function listReports(
  ctx: ServiceContext,
  auth: AuthContext,
  projectId: string | undefined,
): ReportDto[] {
  const conditions: SQL[] = [];
  if (projectId !== undefined) {
    const exists = ctx.db.select({ id: projects.id }).from(projects).where(eq(projects.id, projectId)).get();
    if (!exists || !canSeeProject(auth, projectId)) throw notFound("project");
    conditions.push(eq(anhReports.projectId, projectId));
  } else if (!seesAllProjects(auth.role)) {
    if (auth.projectIds.size === 0) return [];
    conditions.push(inArray(anhReports.projectId, [...auth.projectIds]));
  }
  // The content can be hundreds of kilobytes per report; a list never reads it.
  const { content: _content, ...columns } = getTableColumns(anhReports);
  return ctx.db
    .select(columns)
    .from(anhReports)
    .where(and(...conditions))
    .orderBy(desc(anhReports.reportDate), desc(anhReports.version), anhReports.projectId)
    .all()
    .map((row) => toReportDto({ ...row, content: null }));
}
