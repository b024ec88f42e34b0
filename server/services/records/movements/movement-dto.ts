import type { MovementRow } from "../../../store/rows.ts";
import { baseDto, type CorrectionInput, type RecordBaseDto } from "../record-base.ts";

export type MovementType = MovementRow["movementType"];

export type MovementInput = CorrectionInput & {
  movement_type: MovementType;
  volume_bbls: number;
  /** ISO 8601 instant. */
  timestamp: string;
  notes?: string | null | undefined;
};

export type MovementDto = RecordBaseDto & {
  movement_type: MovementType;
  volume_bbls: number;
  timestamp: string;
  notes: string | null;
};

export function toMovementDto(row: MovementRow, supersededBy: string | null): MovementDto {
  return {
    ...baseDto(row, supersededBy),
    movement_type: row.movementType,
    volume_bbls: row.volumeBbls,
    timestamp: row.timestamp.toISOString(),
    notes: row.notes,
  };
}
