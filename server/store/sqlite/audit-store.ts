import type { Statement } from "better-sqlite3";
import { and, desc, eq, gte, inArray, lt, type SQL } from "drizzle-orm";
import type { AuditEntry } from "../audit-chain.ts";
import type { AuditFilter, AuditStore, StoredAuditEntry } from "../ports/audit-store.ts";
import { appendAudit } from "./append-audit.ts";
import { auditLog } from "./schema/index.ts";
import type { SqliteSession } from "./session.ts";

type ChainRow = Omit<StoredAuditEntry, "at"> & { at: number };

export class SqliteAuditStore implements AuditStore {
  readonly #s: SqliteSession;
  readonly #issued: Statement<[], { seq: number }>;
  readonly #page: Statement<[number, number, number], ChainRow>;

  constructor(session: SqliteSession) {
    this.#s = session;
    this.#issued = session.sqlite.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'audit_log'");
    this.#page = session.sqlite.prepare(
      `SELECT seq, id, at, user_id AS userId, project_id AS projectId, entity, entity_id AS entityId,
              action, before, after, prev_hash AS prevHash, hash
         FROM audit_log WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?`,
    );
  }

  append(entry: AuditEntry): Promise<void> {
    // Outside a transaction it is still atomic: one connection, read and insert in one run.
    return this.#s.gate.run(() => this.#s.db.transaction((tx) => appendAudit(tx, entry)));
  }

  list(filter: AuditFilter) {
    return this.#s.gate.run(() => {
      if (filter.projectIds?.length === 0) return [];
      const conditions: SQL[] = [];
      if (filter.projectIds) conditions.push(inArray(auditLog.projectId, [...filter.projectIds]));
      if (filter.from) conditions.push(gte(auditLog.at, filter.from));
      if (filter.to) conditions.push(lt(auditLog.at, filter.to));
      if (filter.entity !== undefined) conditions.push(eq(auditLog.entity, filter.entity));
      if (filter.entityId !== undefined) conditions.push(eq(auditLog.entityId, filter.entityId));
      if (filter.beforeSeq !== undefined) conditions.push(lt(auditLog.seq, filter.beforeSeq));
      return this.#s.db
        .select()
        .from(auditLog)
        .where(and(...conditions))
        .orderBy(desc(auditLog.seq))
        .limit(filter.limit)
        .all();
    });
  }

  highestIssuedSeq() {
    return this.#s.gate.run(() => this.#issued.get()?.seq ?? 0);
  }

  chainPage(afterSeq: number, upToSeq: number, limit: number) {
    return this.#s.gate.run(() =>
      this.#page.all(afterSeq, upToSeq, limit).map((row) => ({ ...row, at: new Date(row.at) })),
    );
  }
}
