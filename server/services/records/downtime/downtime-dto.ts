import type { DowntimeRow } from "../../../store/rows.ts";
import { baseDto, type CorrectionInput, isoOrNull, type RecordBaseDto } from "../record-base.ts";

export type DowntimeInput = CorrectionInput & {
  reason: string;
  /** ISO 8601 instants; an open downtime has no end. */
  started_at: string;
  ended_at?: string | null | undefined;
};

export type DowntimeDto = RecordBaseDto & {
  reason: string;
  started_at: string;
  ended_at: string | null;
};

export function toDowntimeDto(row: DowntimeRow, supersededBy: string | null): DowntimeDto {
  return {
    ...baseDto(row, supersededBy),
    reason: row.reason,
    started_at: row.startedAt.toISOString(),
    ended_at: isoOrNull(row.endedAt),
  };
}
