import type { LabResultRow } from "../../../store/rows.ts";
import { baseDto, type CorrectionInput, type RecordBaseDto } from "../record-base.ts";

export type LabResultInput = CorrectionInput & {
  /** ISO 8601 instant. */
  sample_date: string;
  api_gravity: number;
  bsw_pct?: number | null | undefined;
  viscosity_cp?: number | null | undefined;
};

export type LabResultDto = RecordBaseDto & {
  sample_date: string;
  api_gravity: number;
  bsw_pct: number | null;
  viscosity_cp: number | null;
};

export function toLabResultDto(row: LabResultRow, supersededBy: string | null): LabResultDto {
  return {
    ...baseDto(row, supersededBy),
    sample_date: row.sampleDate.toISOString(),
    api_gravity: row.apiGravity,
    bsw_pct: row.bswPct,
    viscosity_cp: row.viscosityCp,
  };
}
