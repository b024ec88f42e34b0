import { and, desc, eq } from "drizzle-orm";
import type { ReportStore } from "../ports/report-store.ts";
import { anhReports } from "./schema/index.ts";
import type { SqliteSession } from "./session.ts";

export class SqliteReportStore implements ReportStore {
  readonly #s: SqliteSession;

  constructor(session: SqliteSession) {
    this.#s = session;
  }

  latestVersion(projectId: string, reportDate: string) {
    return this.#s.gate.run(() =>
      this.#s.db
        .select({ id: anhReports.id, status: anhReports.status, content: anhReports.content })
        .from(anhReports)
        .where(and(eq(anhReports.projectId, projectId), eq(anhReports.reportDate, reportDate)))
        .orderBy(desc(anhReports.version))
        .limit(1)
        .get(),
    );
  }
}
