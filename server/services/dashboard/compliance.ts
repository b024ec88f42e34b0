import type { ReportStore } from "../../store/ports/report-store.ts";
import type { ProjectRow } from "../../store/rows.ts";
import { lastClosedDay } from "../reports/production-day.ts";

export type ComplianceEntry = {
  project_id: string;
  project_name: string;
  report_date: string;
  status: "compliant" | "attention" | "non_compliant";
  report_id: string | null;
  report_status: "pending" | "generated" | "submitted" | null;
  gap_count: number | null;
};

/**
 * A project's standing for yesterday (its own time zone): compliant when the day's latest report
 * is generated or submitted and lists no data gaps; attention when it lists gaps; non_compliant
 * when there is none yet (or it is still pending). A project created after yesterday ended owes
 * no report for it (null), nor does one whose time zone is unknown to the runtime.
 */
export async function projectCompliance(
  reports: ReportStore,
  project: ProjectRow,
  nowMs: number,
): Promise<ComplianceEntry | null> {
  let date: string;
  try {
    const day = lastClosedDay(nowMs, project.timezone);
    if (day.endMs <= project.createdAt.getTime()) return null;
    date = day.date;
  } catch {
    return null;
  }
  const report = await reports.latestVersion(project.id, date);
  const base = { project_id: project.id, project_name: project.name, report_date: date };
  if (!report || report.status === "pending" || !report.content) {
    return {
      ...base,
      status: "non_compliant",
      report_id: report?.id ?? null,
      report_status: report?.status ?? null,
      gap_count: null,
    };
  }
  const gaps = gapCountOf(report.content);
  return {
    ...base,
    status: gaps > 0 ? "attention" : "compliant",
    report_id: report.id,
    report_status: report.status,
    gap_count: gaps,
  };
}

const GAP_MARKER = Buffer.from('"data_quality":{"complete":');
const GAP_COUNT = /^(?:true|false),"gap_count":(\d+)/;

/**
 * data_quality.gap_count of stored report bytes. The bytes are RFC 8785 canonical: no whitespace,
 * keys sorted (so "complete" precedes "gap_count"), and a quote inside a string is always escaped,
 * so the marker can only be the top-level key. Reading 64 bytes after it spares parsing a report of
 * hundreds of kilobytes on every dashboard call; anything unexpected falls back to a full parse.
 */
export function gapCountOf(bytes: Buffer): number {
  const at = bytes.indexOf(GAP_MARKER);
  if (at >= 0) {
    const start = at + GAP_MARKER.length;
    const match = GAP_COUNT.exec(bytes.subarray(start, start + 64).toString("utf8"));
    if (match?.[1]) return Number(match[1]);
  }
  const parsed: unknown = JSON.parse(bytes.toString("utf8"));
  if (typeof parsed !== "object" || parsed === null || !("data_quality" in parsed)) return 0;
  const dq: unknown = parsed.data_quality;
  if (typeof dq !== "object" || dq === null || !("gap_count" in dq)) return 0;
  return typeof dq.gap_count === "number" ? dq.gap_count : 0;
}
