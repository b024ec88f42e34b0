import type { WellTestRow } from "../../../store/rows.ts";
import { baseDto, type CorrectionInput, type RecordBaseDto } from "../record-base.ts";

export type WellTestInput = CorrectionInput & {
  asset_id: string;
  /** ISO 8601 instant. */
  test_date: string;
  oil_rate_bopd?: number | null | undefined;
  water_cut_pct?: number | null | undefined;
  gor_scf_bbl?: number | null | undefined;
};

export type WellTestDto = RecordBaseDto & {
  asset_id: string;
  test_date: string;
  oil_rate_bopd: number | null;
  water_cut_pct: number | null;
  gor_scf_bbl: number | null;
};

export function toWellTestDto(row: WellTestRow, supersededBy: string | null): WellTestDto {
  return {
    ...baseDto(row, supersededBy),
    asset_id: row.assetId,
    test_date: row.testDate.toISOString(),
    oil_rate_bopd: row.oilRateBopd,
    water_cut_pct: row.waterCutPct,
    gor_scf_bbl: row.gorScfBbl,
  };
}
