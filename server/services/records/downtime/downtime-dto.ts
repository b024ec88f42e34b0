import type { downtime } from "../../../store/sqlite/schema/index.ts";
import { baseDto, type CorrectionInput, isoOrNull, type RecordBaseDto } from "../record-base.ts";

type DowntimeRow = typeof downtime.$inferSelect;

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
