import type { MeterReadingRow } from "../../../store/rows.ts";
import { baseDto, type CorrectionInput, type RecordBaseDto } from "../record-base.ts";

export type MeterReadingInput = CorrectionInput & {
  meter_id: string;
  reading_value: number;
  /** ISO 8601 instant. */
  read_at: string;
  unit?: string | null | undefined;
};

export type MeterReadingDto = RecordBaseDto & {
  meter_id: string;
  reading_value: number;
  read_at: string;
  unit: string | null;
};

export function toMeterReadingDto(row: MeterReadingRow, supersededBy: string | null): MeterReadingDto {
  return {
    ...baseDto(row, supersededBy),
    meter_id: row.meterId,
    reading_value: row.readingValue,
    read_at: row.readAt.toISOString(),
    unit: row.unit,
  };
}
