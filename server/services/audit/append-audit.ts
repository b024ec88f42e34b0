import { createHash, randomUUID } from "node:crypto";
import { desc } from "drizzle-orm";
import type { Db } from "../../store/sqlite/client.ts";
import { auditLog } from "../../store/sqlite/schema/index.ts";

export type AuditEntry = {
  at: Date;
  userId: string | null;
  projectId: string | null;
  entity: string;
  entityId: string;
  action: "create" | "update" | "delete";
  before: unknown;
  after: unknown;
};

/** A transaction handle or the database itself. */
export type DbOrTx = Pick<Db, "select" | "insert" | "update" | "delete">;

/** The canonical text an entry's hash covers: every field in a fixed order, then the previous hash. */
export function auditHashInput(e: {
  id: string;
  at: Date;
  userId: string | null;
  projectId: string | null;
  entity: string;
  entityId: string;
  action: string;
  before: unknown;
  after: unknown;
  prevHash: string;
}): string {
  return JSON.stringify([
    e.id,
    e.at.toISOString(),
    e.userId,
    e.projectId,
    e.entity,
    e.entityId,
    e.action,
    e.before ?? null,
    e.after ?? null,
    e.prevHash,
  ]);
}

export function auditHash(input: string): string {
  return createHash("sha256").update(input).digest("hex");
}

/**
 * Appends to the hash-chained audit log (API MPMS 21.1 §5: configuration and event logs).
 * Call inside the same transaction as the change it records, so neither lands without the other.
 */
export function appendAudit(tx: DbOrTx, entry: AuditEntry): void {
  const last = tx.select({ hash: auditLog.hash }).from(auditLog).orderBy(desc(auditLog.seq)).limit(1).get();
  const prevHash = last?.hash ?? "";
  const id = randomUUID();
  const row = { id, ...entry, before: entry.before ?? null, after: entry.after ?? null, prevHash };
  tx.insert(auditLog)
    .values({ ...row, hash: auditHash(auditHashInput(row)) })
    .run();
}
