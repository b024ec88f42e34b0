import type { ReportStore } from "../../store/ports/report-store.ts";
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
export async function nextVersion(
  reports: ReportStore,
  projectId: string,
  date: string,
): Promise<NextVersion> {
  const latest = await reports.latestVersion(projectId, date);
  const pending = latest?.status === "pending" ? latest : undefined;
  return {
    pending,
    version: pending ? pending.version : (latest?.version ?? 0) + 1,
    supersedes: pending ? pending.supersedes : (latest?.id ?? null),
    previousHash: await chainHead(reports, projectId),
  };
}

/**
 * The hash of the project's most recently generated report: the one no other report names as
 * its predecessor. Chained in generation order (like the audit log), so a re-generated day links
 * to whatever was generated just before it and the chain stays a single line.
 */
async function chainHead(reports: ReportStore, projectId: string): Promise<string | null> {
  const links = await reports.chainLinks(projectId);
  const named = new Set(links.map((r) => r.previous));
  let head: (typeof links)[number] | undefined;
  for (const r of links) {
    if (named.has(r.hash)) continue;
    // Only one head exists when every report is generated here; if rows were ever added by other
    // means, the newest wins (of equals, the first listed).
    if (!head || (r.generatedAt?.getTime() ?? 0) > (head.generatedAt?.getTime() ?? 0)) head = r;
  }
  return head?.hash ?? null;
}
