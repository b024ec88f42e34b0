import type { AuthContext } from "../../auth/auth-context.ts";
import type { ServiceContext } from "../../context.ts";
import { visibleProject } from "../../field/lookup.ts";
import { auditRecordCreate } from "../audit-record.ts";
import { assertCorrectable, assertCorrectionFields } from "../corrections.ts";
import { baseValues } from "../record-base.ts";
import { type LabResultDto, type LabResultInput, toLabResultDto } from "./lab-result-dto.ts";

/** Records a laboratory analysis of a crude sample (API gravity, BS&W, viscosity). */
export async function createLabResult(
  ctx: ServiceContext,
  auth: AuthContext,
  input: LabResultInput,
): Promise<LabResultDto> {
  assertCorrectionFields(input);
  const now = ctx.clock.now();
  return ctx.store.transaction(async (tx) => {
    await visibleProject(tx.field, auth, input.project_id);
    await assertCorrectable(tx.records, "lab_result", input, "lab result");
    const row = await tx.records.append("lab_result", {
      ...baseValues(input, auth, now),
      sampleDate: new Date(input.sample_date),
      apiGravity: input.api_gravity,
      bswPct: input.bsw_pct ?? null,
      viscosityCp: input.viscosity_cp ?? null,
    });
    const dto = toLabResultDto(row, null);
    await auditRecordCreate(tx.audit, auth, "lab_result", dto, now);
    return dto;
  });
}
