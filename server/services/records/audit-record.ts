import { appendAudit, type DbOrTx } from "../../store/sqlite/append-audit.ts";
import type { AuthContext } from "../auth/auth-context.ts";
import type { RecordBaseDto } from "./record-base.ts";
import type { RecordEntity } from "./record-tables.ts";

/**
 * The event-log entry of a new record (API MPMS 21.1 §5), in the insert's transaction. The
 * stored fields only: `superseded_by` is derived from later records, not part of this one.
 */
export function auditRecordCreate(
  tx: DbOrTx,
  auth: AuthContext,
  entity: RecordEntity,
  record: RecordBaseDto,
  now: Date,
): void {
  const { superseded_by: _derived, ...stored } = record;
  appendAudit(tx, {
    at: now,
    userId: auth.userId,
    projectId: record.project_id,
    entity,
    entityId: record.id,
    action: "create",
    before: null,
    after: stored,
  });
}
