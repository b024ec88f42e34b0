import { randomUUID } from "node:crypto";
import type { AuthContext } from "../auth/auth-context.ts";

/** Fields every operational record takes besides its own (spec §2, "Operational record inputs"). */
export type CorrectionInput = {
  project_id: string;
  /** Id of the record of the same type and project that this one corrects. */
  supersedes?: string | null | undefined;
  /** Why the correction was made; required with `supersedes`, refused without it. */
  correction_reason?: string | null | undefined;
};

/** Returned with every record: the correction chain and who entered it. */
export type RecordBaseDto = {
  id: string;
  project_id: string;
  supersedes: string | null;
  correction_reason: string | null;
  /** Id of the record that corrects this one, or null while this one is current. */
  superseded_by: string | null;
  created_by: string | null;
  created_at: string;
};

type BaseRow = {
  id: string;
  projectId: string;
  supersedes: string | null;
  correctionReason: string | null;
  createdBy: string | null;
  createdAt: Date;
};

/** Columns shared by every record table, for an insert. */
export function baseValues(input: CorrectionInput, auth: AuthContext, now: Date): BaseRow {
  return {
    id: randomUUID(),
    projectId: input.project_id,
    supersedes: input.supersedes ?? null,
    correctionReason: input.correction_reason?.trim() || null,
    createdBy: auth.userId,
    createdAt: now,
  };
}

export function baseDto(row: BaseRow, supersededBy: string | null): RecordBaseDto {
  return {
    id: row.id,
    project_id: row.projectId,
    supersedes: row.supersedes,
    correction_reason: row.correctionReason,
    superseded_by: supersededBy,
    created_by: row.createdBy,
    created_at: row.createdAt.toISOString(),
  };
}

export const isoOrNull = (d: Date | null): string | null => (d ? d.toISOString() : null);
