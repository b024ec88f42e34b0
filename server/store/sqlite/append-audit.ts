import { desc } from "drizzle-orm";
import { type AuditEntry, chainAuditEntry } from "../audit-chain.ts";
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
  tx.insert(auditLog)
    .values(chainAuditEntry(entry, last?.hash ?? ""))
    .run();
}
