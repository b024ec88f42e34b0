import { AppError, notFound } from "../../errors.ts";
import { type AuthContext, canSeeProject } from "../auth/auth-context.ts";
import type { ServiceContext } from "../context.ts";
import type { AnhReportContent } from "./content-schema.ts";
import { type ReportDto, type ReportRow, toReportDto } from "./report-dto.ts";

/** A report of one of the caller's projects, or 404 (existence is not revealed). */
export async function visibleReport(ctx: ServiceContext, auth: AuthContext, id: string): Promise<ReportRow> {
  const row = await ctx.store.reports.report(id);
  if (!row || !canSeeProject(auth, row.projectId)) throw notFound("report");
  return row;
}

/** Parses stored canonical bytes. They were produced from an AnhReportContent by this service. */
function parseContent(bytes: Buffer): AnhReportContent {
  return JSON.parse(bytes.toString("utf8")) as AnhReportContent;
}

/** GET /anh/reports/{id}: the report with its content parsed (null while pending). */
export async function getReport(
  ctx: ServiceContext,
  auth: AuthContext,
  id: string,
): Promise<ReportDto & { content: AnhReportContent | null }> {
  const row = await visibleReport(ctx, auth, id);
  return { ...toReportDto(row), content: row.content ? parseContent(row.content) : null };
}

export type ReportFile = { bytes: Buffer; hash: string; filename: string };

/**
 * The stored bytes of a generated report, exactly as hashed. 409 while it is pending: there are
 * no bytes yet.
 */
export async function reportFile(ctx: ServiceContext, auth: AuthContext, id: string): Promise<ReportFile> {
  const row = await visibleReport(ctx, auth, id);
  if (!row.content || !row.hashSha384) {
    throw new AppError("Conflict", "the report is pending: it is generated shortly after its day closes");
  }
  const project = await ctx.store.field.project(row.projectId);
  return {
    bytes: row.content,
    hash: row.hashSha384,
    filename: `anh-${projectSlug(project?.name, row.projectId)}-${row.reportDate}-v${row.version}.json`,
  };
}

/** The project's name as a file-name-safe slug ("Campo Rubiales #2" → "campo-rubiales-2"); the id if none is left. */
export function projectSlug(name: string | undefined, id: string): string {
  const slug = (name ?? "")
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 48)
    .replace(/-+$/, "");
  return slug || id;
}
