import { and, asc, desc, eq, getTableColumns, inArray, isNotNull, lte, sql } from "drizzle-orm";
import type { ListedReport, ReportStore } from "../ports/report-store.ts";
import type { NewAnhReportRow } from "../rows.ts";
import { anhReports } from "./schema/index.ts";
import type { PgSession } from "./session.ts";

// The bytes can be hundreds of kilobytes per report; a list never reads them.
const { content: _content, ...listedColumns } = getTableColumns(anhReports);

export class PostgresReportStore implements ReportStore {
  readonly #s: PgSession;

  constructor(session: PgSession) {
    this.#s = session;
  }

  async serializeGenerations() {
    if (!this.#s.inTransaction()) throw new Error("serializeGenerations runs first in a transaction");
    // LOCK TABLE takes no snapshot, so a REPEATABLE READ transaction's snapshot is taken by the
    // statement after it, once the lock is held (PostgreSQL's LOCK page). The mode conflicts with
    // itself and with writes to the table, not with reads.
    await this.#s.executor().execute(sql`LOCK TABLE anh_reports IN SHARE ROW EXCLUSIVE MODE`);
  }

  async latestVersion(projectId: string, reportDate: string) {
    const [row] = await this.#s
      .executor()
      .select()
      .from(anhReports)
      .where(and(eq(anhReports.projectId, projectId), eq(anhReports.reportDate, reportDate)))
      .orderBy(desc(anhReports.version))
      .limit(1);
    return row;
  }

  async hasDay(projectId: string, reportDate: string) {
    const [row] = await this.#s
      .executor()
      .select({ id: anhReports.id })
      .from(anhReports)
      .where(and(eq(anhReports.projectId, projectId), eq(anhReports.reportDate, reportDate)))
      .limit(1);
    return row !== undefined;
  }

  async report(id: string) {
    const query = this.#s.executor().select().from(anhReports).where(eq(anhReports.id, id)).limit(1);
    const [row] = this.#s.inTransaction() ? await query.for("update") : await query;
    return row;
  }

  async list(projectIds?: readonly string[]): Promise<ListedReport[]> {
    if (projectIds?.length === 0) return [];
    return this.#s
      .executor()
      .select(listedColumns)
      .from(anhReports)
      .where(projectIds && inArray(anhReports.projectId, [...projectIds]))
      .orderBy(desc(anhReports.reportDate), desc(anhReports.version), asc(anhReports.projectId));
  }

  async chainLinks(projectId: string) {
    const rows = await this.#s
      .executor()
      .select({
        hash: anhReports.hashSha384,
        previous: anhReports.previousHashSha384,
        generatedAt: anhReports.generatedAt,
      })
      .from(anhReports)
      .where(and(eq(anhReports.projectId, projectId), isNotNull(anhReports.hashSha384)))
      // NULLS FIRST, where SQLite sorts them ascending.
      .orderBy(sql`${anhReports.generatedAt} ASC NULLS FIRST`, asc(anhReports.id));
    // Not null here (the WHERE above); drizzle's types cannot know it.
    return rows.map((r) => ({ ...r, hash: r.hash ?? "" }));
  }

  async pendingDue(periodEndBy: Date) {
    return this.#s
      .executor()
      .select({ projectId: anhReports.projectId, reportDate: anhReports.reportDate })
      .from(anhReports)
      .where(and(eq(anhReports.status, "pending"), lte(anhReports.periodEnd, periodEndBy)))
      .orderBy(asc(anhReports.periodEnd), asc(anhReports.projectId), asc(anhReports.reportDate));
  }

  async insert(row: NewAnhReportRow) {
    const [stored] = await this.#s.executor().insert(anhReports).values(row).returning();
    if (!stored) throw new Error("INSERT … RETURNING returned no report row");
    return stored;
  }

  async update(
    id: string,
    set: Partial<Omit<NewAnhReportRow, "id" | "projectId" | "reportDate" | "version">>,
  ) {
    const [row] = await this.#s
      .executor()
      .update(anhReports)
      .set(set)
      .where(eq(anhReports.id, id))
      .returning();
    return row;
  }
}
