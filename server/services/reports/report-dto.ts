import type { AnhReportRow } from "../../store/rows.ts";

export type ReportRow = AnhReportRow;

/** ANHReport (spec §2) plus the version chain, generation and submission fields. */
export type ReportDto = {
  id: string;
  project_id: string;
  report_date: string;
  period_start: string;
  period_end: string;
  status: ReportRow["status"];
  hash_sha384: string | null;
  created_at: string;
  version: number;
  supersedes: string | null;
  generated_at: string | null;
  submitted_at: string | null;
  submitted_by: string | null;
};

/** Every column but the bytes: a listed report (ReportStore.list) converts too. */
export function toReportDto(row: Omit<ReportRow, "content">): ReportDto {
  return {
    id: row.id,
    project_id: row.projectId,
    report_date: row.reportDate,
    period_start: row.periodStart.toISOString(),
    period_end: row.periodEnd.toISOString(),
    status: row.status,
    hash_sha384: row.hashSha384,
    created_at: row.createdAt.toISOString(),
    version: row.version,
    supersedes: row.supersedes,
    generated_at: row.generatedAt?.toISOString() ?? null,
    submitted_at: row.submittedAt?.toISOString() ?? null,
    submitted_by: row.submittedBy,
  };
}

/** What the audit log keeps of a report: never the content, only its identity and hash. */
export function auditView(row: ReportRow) {
  return {
    id: row.id,
    report_date: row.reportDate,
    version: row.version,
    supersedes: row.supersedes,
    status: row.status,
    hash_sha384: row.hashSha384,
    submitted_at: row.submittedAt?.toISOString() ?? null,
    submitted_by: row.submittedBy,
  };
}
