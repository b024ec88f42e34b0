import type { AnhReportRow } from "../rows.ts";

/** ANH 0651 daily reports: one row per project, production day and version. */
export type ReportStore = {
  /**
   * The highest version of the project's report for `reportDate` (YYYY-MM-DD, the project's time
   * zone): its id, status and stored bytes (null until generated); undefined when there is none.
   */
  latestVersion(
    projectId: string,
    reportDate: string,
  ): Promise<Pick<AnhReportRow, "id" | "status" | "content"> | undefined>;
};
