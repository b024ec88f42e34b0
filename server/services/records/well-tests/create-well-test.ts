import { wellTests } from "../../../store/sqlite/schema/index.ts";
import type { AuthContext } from "../../auth/auth-context.ts";
import type { ServiceContext } from "../../context.ts";
import { auditRecordCreate } from "../audit-record.ts";
import { assertCorrectable, assertCorrectionFields } from "../corrections.ts";
import { assertRecordAsset } from "../record-asset.ts";
import { baseValues } from "../record-base.ts";
import { assertRecordProject } from "../record-project.ts";
import { toWellTestDto, type WellTestDto, type WellTestInput } from "./well-test-dto.ts";

/** Records a well test; `asset_id` must be a well of the same project. */
export function createWellTest(ctx: ServiceContext, auth: AuthContext, input: WellTestInput): WellTestDto {
  assertCorrectionFields(input);
  const now = ctx.clock.now();
  return ctx.db.transaction((tx) => {
    assertRecordProject(tx, auth, input.project_id);
    assertRecordAsset(tx, "asset_id", input.project_id, input.asset_id, "well");
    assertCorrectable(tx, wellTests, input, "well test");
    const row = tx
      .insert(wellTests)
      .values({
        ...baseValues(input, auth, now),
        assetId: input.asset_id,
        testDate: new Date(input.test_date),
        oilRateBopd: input.oil_rate_bopd ?? null,
        waterCutPct: input.water_cut_pct ?? null,
        gorScfBbl: input.gor_scf_bbl ?? null,
      })
      .returning()
      .get();
    const dto = toWellTestDto(row, null);
    auditRecordCreate(tx, auth, "well_test", dto, now);
    return dto;
  });
}
