import { and, desc, eq, gte, inArray, lt, type SQL, sql } from "drizzle-orm";
import { type AuditEntry, chainAuditEntry } from "../audit-chain.ts";
import type { AuditFilter, AuditStore, StoredAuditEntry } from "../ports/audit-store.ts";
import { auditLog, auditLogHead } from "./schema/index.ts";
import type { PgExecutor, PgSession } from "./session.ts";

/** A chain page row as the driver hands it: bigint columns as text. */
type ChainRow = Omit<StoredAuditEntry, "seq" | "at"> & { seq: string; at: string };

/**
 * Appends inside `tx` (docs/scale-out.md): locking the head serialises appenders, so the hash read
 * next is the newest committed one and the seq after the head is free. The insert trigger checks
 * that seq and advances the head; a rollback spends none.
 */
async function appendIn(tx: PgExecutor, entry: AuditEntry): Promise<void> {
  const [head] = await tx
    .select({ seq: auditLogHead.seq })
    .from(auditLogHead)
    .where(eq(auditLogHead.one, true))
    .for("update");
  if (!head) throw new Error("audit_log_head has no row (migration 0004 inserts it)");
  const [last] = await tx.select({ hash: auditLog.hash }).from(auditLog).orderBy(desc(auditLog.seq)).limit(1);
  await tx.insert(auditLog).values({ seq: head.seq + 1, ...chainAuditEntry(entry, last?.hash ?? "") });
}

export class PostgresAuditStore implements AuditStore {
  readonly #s: PgSession;

  constructor(session: PgSession) {
    this.#s = session;
  }

  async append(entry: AuditEntry): Promise<void> {
    const executor = this.#s.executor();
    // Outside a transaction it opens its own: the head stays locked until the insert commits.
    if (this.#s.inTransaction()) await appendIn(executor, entry);
    else await executor.transaction((tx) => appendIn(tx, entry));
  }

  async list(filter: AuditFilter) {
    if (filter.projectIds?.length === 0) return [];
    const conditions: SQL[] = [];
    if (filter.projectIds) conditions.push(inArray(auditLog.projectId, [...filter.projectIds]));
    if (filter.from) conditions.push(gte(auditLog.at, filter.from));
    if (filter.to) conditions.push(lt(auditLog.at, filter.to));
    if (filter.entity !== undefined) conditions.push(eq(auditLog.entity, filter.entity));
    if (filter.entityId !== undefined) conditions.push(eq(auditLog.entityId, filter.entityId));
    if (filter.beforeSeq !== undefined) conditions.push(lt(auditLog.seq, filter.beforeSeq));
    return this.#s
      .executor()
      .select()
      .from(auditLog)
      .where(and(...conditions))
      .orderBy(desc(auditLog.seq))
      .limit(filter.limit);
  }

  async highestIssuedSeq() {
    const [head] = await this.#s.executor().select({ seq: auditLogHead.seq }).from(auditLogHead);
    return head?.seq ?? 0;
  }

  async chainPage(afterSeq: number, upToSeq: number, limit: number) {
    // before/after as their stored text, not parsed: the verifier hashes exactly what was stored.
    const { rows } = await this.#s.executor().execute<ChainRow>(
      sql`SELECT seq, id, at, user_id AS "userId", project_id AS "projectId", entity, entity_id AS "entityId",
                 action, before, after, prev_hash AS "prevHash", hash
            FROM audit_log WHERE seq > ${afterSeq} AND seq <= ${upToSeq} ORDER BY seq LIMIT ${limit}`,
    );
    return rows.map((row) => ({ ...row, seq: Number(row.seq), at: new Date(Number(row.at)) }));
  }
}
