import type { AuditStore } from "../../store/ports/audit-store.ts";
import type { RecordKind } from "../../store/ports/record-store.ts";
import type { AuthContext } from "../auth/auth-context.ts";
import type { RecordBaseDto } from "./record-base.ts";

/**
 * The event-log entry of a new record (API MPMS 21.1 §5), in the insert's transaction. The
 * stored fields only: `superseded_by` is derived from later records, not part of this one.
 */
export function auditRecordCreate(
  audit: AuditStore,
  auth: AuthContext,
  kind: RecordKind,
  record: RecordBaseDto,
  now: Date,
): Promise<void> {
  const { superseded_by: _derived, ...stored } = record;
  return audit.append({
    at: now,
    userId: auth.userId,
    projectId: record.project_id,
    entity: kind,
    entityId: record.id,
    action: "create",
    before: null,
    after: stored,
  });
}
