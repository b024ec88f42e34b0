import { randomUUID } from "node:crypto";
import { desc } from "drizzle-orm";
import { type AuditEntry, auditHash, auditHashInput } from "../audit-chain.ts";
import type { Db } from "./client.ts";
import { auditLog } from "./schema/index.ts";

/** A transaction handle or the database itself. */
export type DbOrTx = Pick<Db, "select" | "insert" | "update" | "delete">;

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
