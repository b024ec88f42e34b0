import type { AuditRow } from "../../store/rows.ts";

/** One entry of the configuration and event log (API MPMS 21.1 §5). */
export type AuditEntryDto = {
  seq: number;
  id: string;
  at: string;
  user_id: string | null;
  project_id: string | null;
  entity: string;
  entity_id: string;
  action: AuditRow["action"];
  before: unknown;
  after: unknown;
  prev_hash: string;
  hash: string;
};

export function toAuditEntryDto(row: AuditRow): AuditEntryDto {
  return {
    seq: row.seq,
    id: row.id,
    at: row.at.toISOString(),
    user_id: row.userId,
    project_id: row.projectId,
    entity: row.entity,
    entity_id: row.entityId,
    action: row.action,
    before: row.before ?? null,
    after: row.after ?? null,
    prev_hash: row.prevHash,
    hash: row.hash,
  };
}
