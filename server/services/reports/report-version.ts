import { and, desc, eq, isNotNull } from "drizzle-orm";
import type { DbOrTx } from "../../store/sqlite/append-audit.ts";
import { anhReports } from "../../store/sqlite/schema/index.ts";
import type { ReportRow } from "./report-dto.ts";

/** Where the next report of a day goes: its version, predecessor and the chain it links to. */
export type NextVersion = {
  /** The day's pending row (made by the scheduler at day close), which generation fills in. */
  pending: ReportRow | undefined;
  version: number;
  supersedes: string | null;
  previousHash: string | null;
};

/**
 * A pending row for the day is filled in; otherwise the next report is a new version (version + 1,
 * `supersedes` = the day's latest version), so a generated report's bytes never change.
 */
export function nextVersion(tx: DbOrTx, projectId: string, date: string): NextVersion {
  const latest = tx
    .select()
    .from(anhReports)
    .where(and(eq(anhReports.projectId, projectId), eq(anhReports.reportDate, date)))
    .orderBy(desc(anhReports.version))
    .limit(1)
    .get();
  const pending = latest?.status === "pending" ? latest : undefined;
  return {
    pending,
    version: pending ? pending.version : (latest?.version ?? 0) + 1,
    supersedes: pending ? pending.supersedes : (latest?.id ?? null),
    previousHash: chainHead(tx, projectId),
  };
}

/**
 * The hash of the project's most recently generated report: the one no other report names as
 * its predecessor. Chained in generation order (like the audit log), so a re-generated day links
 * to whatever was generated just before it and the chain stays a single line.
 */
function chainHead(tx: DbOrTx, projectId: string): string | null {
  const rows = tx
    .select({
      hash: anhReports.hashSha384,
      previous: anhReports.previousHashSha384,
      generatedAt: anhReports.generatedAt,
    })
    .from(anhReports)
    .where(and(eq(anhReports.projectId, projectId), isNotNull(anhReports.hashSha384)))
    .all();
  const named = new Set(rows.map((r) => r.previous));
  let head: (typeof rows)[number] | undefined;
  for (const r of rows) {
    if (named.has(r.hash)) continue;
    // Only one head exists when every report is generated here; if rows were ever added by other
    // means, the newest wins.
    if (!head || (r.generatedAt?.getTime() ?? 0) > (head.generatedAt?.getTime() ?? 0)) head = r;
  }
  return head?.hash ?? null;
}
