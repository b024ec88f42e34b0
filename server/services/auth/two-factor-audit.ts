import type { AuditStore } from "../../store/ports/audit-store.ts";

/** Two-factor changes are user changes: they go to the audit log, never with secrets or codes. */
export function auditTwoFactor(
  audit: AuditStore,
  userId: string,
  at: Date,
  before: Record<string, unknown>,
  after: Record<string, unknown>,
): Promise<void> {
  return audit.append({
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
