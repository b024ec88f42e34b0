import { and, desc, eq } from "drizzle-orm";
import type { ReportStore } from "../ports/report-store.ts";
import { anhReports } from "./schema/index.ts";
import type { PgSession } from "./session.ts";

export class PostgresReportStore implements ReportStore {
  readonly #s: PgSession;

  constructor(session: PgSession) {
    this.#s = session;
  }

  async latestVersion(projectId: string, reportDate: string) {
    const [row] = await this.#s
      .executor()
      .select({ id: anhReports.id, status: anhReports.status, content: anhReports.content })
      .from(anhReports)
      .where(and(eq(anhReports.projectId, projectId), eq(anhReports.reportDate, reportDate)))
      .orderBy(desc(anhReports.version))
      .limit(1);
    return row;
  }
}
