import type { AuthContext } from "../../auth/auth-context.ts";
import type { ServiceContext } from "../../context.ts";
import { visibleProject } from "../../field/lookup.ts";
import { auditRecordCreate } from "../audit-record.ts";
import { assertCorrectable, assertCorrectionFields } from "../corrections.ts";
import { assertRecordAsset } from "../record-asset.ts";
import { baseValues } from "../record-base.ts";
import { toWellTestDto, type WellTestDto, type WellTestInput } from "./well-test-dto.ts";

/** Records a well test; `asset_id` must be a well of the same project. */
export async function createWellTest(
  ctx: ServiceContext,
  auth: AuthContext,
  input: WellTestInput,
): Promise<WellTestDto> {
  assertCorrectionFields(input);
  const now = ctx.clock.now();
  return ctx.store.transaction(async (tx) => {
    await visibleProject(tx.field, auth, input.project_id);
    await assertRecordAsset(tx.records, "asset_id", input.project_id, input.asset_id, "well");
    await assertCorrectable(tx.records, "well_test", input, "well test");
    const row = await tx.records.append("well_test", {
      ...baseValues(input, auth, now),
      assetId: input.asset_id,
      testDate: new Date(input.test_date),
      oilRateBopd: input.oil_rate_bopd ?? null,
      waterCutPct: input.water_cut_pct ?? null,
      gorScfBbl: input.gor_scf_bbl ?? null,
    });
    const dto = toWellTestDto(row, null);
    await auditRecordCreate(tx.audit, auth, "well_test", dto, now);
    return dto;
  });
}
