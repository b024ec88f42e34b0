import type { AnhReportRow, NewAnhReportRow } from "../rows.ts";

/** A report as listed: every column but its stored bytes. */
export type ListedReport = Omit<AnhReportRow, "content">;

/** A generated report's link in its project's hash chain. */
export type ReportChainLink = {
  /** SHA-384 of its bytes, lower-case hex. */
  hash: string;
  /** The hash its content names as the previous report's (null for the project's first). */
  previous: string | null;
  generatedAt: Date | null;
};

/**
 * ANH 0651 daily reports: one row per project, production day (`report_date`, YYYY-MM-DD in the
 * project's time zone) and version (1, 2, … per day). A generated report's bytes and hash never
 * change; the only later change is its submission (status, submitted_at, submitted_by).
 */
export type ReportStore = {
  /**
   * The first call of a report generation's snapshot transaction: generations run one at a time,
   * and this one's snapshot is taken after the one before it committed, so it numbers its version
   * and links its chain from that one's report. Without it, on PostgreSQL six concurrent
   * generations of one day each read the same latest version; five hit the unique index and ran
   * again, and the last ran out of attempts (a 500). SQLite's single writer already does this.
   */
  serializeGenerations(): Promise<void>;
  /**
   * The highest version of the project's report for `reportDate`, the whole row (`content` null
   * until generated); undefined when the day has none.
   */
  latestVersion(projectId: string, reportDate: string): Promise<AnhReportRow | undefined>;
  /** Whether the project has any report (any version, any status) for `reportDate`. */
  hasDay(projectId: string, reportDate: string): Promise<boolean>;
  /**
   * The report with id `id`, the whole row; undefined when there is none. Inside a transaction the
   * row stays locked until it ends (SELECT … FOR UPDATE on PostgreSQL; SQLite has one writer), so
   * a transaction that decides on its status (a submission) sees any concurrent one's change.
   */
  report(id: string): Promise<AnhReportRow | undefined>;
  /**
   * Every version of every report of these projects (`projectIds` undefined: of every project; an
   * empty list matches nothing), without their bytes: `report_date` descending, then `version`
   * descending, then `project_id` ascending in byte order (SQLite's BINARY collation; on
   * PostgreSQL `COLLATE "C"`).
   */
  list(projectIds?: readonly string[]): Promise<ListedReport[]>;
  /**
   * The chain links of the project's generated reports (those with a hash, submitted ones
   * included), by `generated_at` ascending, then id ascending in byte order.
   */
  chainLinks(projectId: string): Promise<ReportChainLink[]>;
  /**
   * The pending reports (status "pending") whose `period_end` is at or before `periodEndBy`, every
   * project: `period_end` ascending, then `project_id`, then `report_date`, both ascending in byte
   * order.
   */
  pendingDue(periodEndBy: Date): Promise<{ projectId: string; reportDate: string }[]>;
  /**
   * Inserts `row` exactly as given (the caller chooses `id`, `version` and `created_at`) and
   * returns it as stored. Throws the engine's unique-constraint error when the project already has
   * that version of the day.
   */
  insert(row: NewAnhReportRow): Promise<AnhReportRow>;
  /** Sets these columns of report `id`; the row as stored after, or undefined when there is none. */
  update(
    id: string,
    set: Partial<Omit<NewAnhReportRow, "id" | "projectId" | "reportDate" | "version">>,
  ): Promise<AnhReportRow | undefined>;
};
