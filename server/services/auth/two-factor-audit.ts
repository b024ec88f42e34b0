import { appendAudit, type DbOrTx } from "../../store/sqlite/append-audit.ts";

/** Two-factor changes are user changes: they go to the audit log, never with secrets or codes. */
export function auditTwoFactor(
  tx: DbOrTx,
  userId: string,
  at: Date,
  before: Record<string, unknown>,
  after: Record<string, unknown>,
): void {
  appendAudit(tx, {
    at,
    userId,
    projectId: null,
    entity: "user",
    entityId: userId,
    action: "update",
    before,
    after,
  });
}
