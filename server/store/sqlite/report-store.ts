import { and, asc, desc, eq, getTableColumns, inArray, isNotNull, lte } from "drizzle-orm";
import type { ListedReport, ReportStore } from "../ports/report-store.ts";
import type { NewAnhReportRow } from "../rows.ts";
import { anhReports } from "./schema/index.ts";
import type { SqliteSession } from "./session.ts";

// The bytes can be hundreds of kilobytes per report; a list never reads them.
const { content: _content, ...listedColumns } = getTableColumns(anhReports);

export class SqliteReportStore implements ReportStore {
  readonly #s: SqliteSession;

  constructor(session: SqliteSession) {
    this.#s = session;
  }

  async serializeGenerations() {
    // One writer at a time, and a transaction's reads are its snapshot already.
  }

  latestVersion(projectId: string, reportDate: string) {
    return this.#s.gate.run(() =>
      this.#s.db
        .select()
        .from(anhReports)
        .where(and(eq(anhReports.projectId, projectId), eq(anhReports.reportDate, reportDate)))
        .orderBy(desc(anhReports.version))
        .limit(1)
        .get(),
    );
  }

  hasDay(projectId: string, reportDate: string) {
    return this.#s.gate.run(
      () =>
        this.#s.db
          .select({ id: anhReports.id })
          .from(anhReports)
          .where(and(eq(anhReports.projectId, projectId), eq(anhReports.reportDate, reportDate)))
          .limit(1)
          .get() !== undefined,
    );
  }

  report(id: string) {
    return this.#s.gate.run(() => this.#s.db.select().from(anhReports).where(eq(anhReports.id, id)).get());
  }

  list(projectIds?: readonly string[]) {
    return this.#s.gate.run((): ListedReport[] => {
      if (projectIds?.length === 0) return [];
      return this.#s.db
        .select(listedColumns)
        .from(anhReports)
        .where(projectIds && inArray(anhReports.projectId, [...projectIds]))
        .orderBy(desc(anhReports.reportDate), desc(anhReports.version), asc(anhReports.projectId))
        .all();
    });
  }

  chainLinks(projectId: string) {
    return this.#s.gate.run(() =>
      this.#s.db
        .select({
          hash: anhReports.hashSha384,
          previous: anhReports.previousHashSha384,
          generatedAt: anhReports.generatedAt,
        })
        .from(anhReports)
        .where(and(eq(anhReports.projectId, projectId), isNotNull(anhReports.hashSha384)))
        .orderBy(asc(anhReports.generatedAt), asc(anhReports.id))
        .all()
        // Not null here (the WHERE above); drizzle's types cannot know it.
        .map((r) => ({ ...r, hash: r.hash ?? "" })),
    );
  }

  pendingDue(periodEndBy: Date) {
    return this.#s.gate.run(() =>
      this.#s.db
        .select({ projectId: anhReports.projectId, reportDate: anhReports.reportDate })
        .from(anhReports)
        .where(and(eq(anhReports.status, "pending"), lte(anhReports.periodEnd, periodEndBy)))
        .orderBy(asc(anhReports.periodEnd), asc(anhReports.projectId), asc(anhReports.reportDate))
        .all(),
    );
  }

  insert(row: NewAnhReportRow) {
    return this.#s.gate.run(() => this.#s.db.insert(anhReports).values(row).returning().get());
  }

  update(id: string, set: Partial<Omit<NewAnhReportRow, "id" | "projectId" | "reportDate" | "version">>) {
    return this.#s.gate.run(() =>
      this.#s.db.update(anhReports).set(set).where(eq(anhReports.id, id)).returning().get(),
    );
  }
}
