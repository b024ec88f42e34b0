import { labResults } from "../../../store/sqlite/schema/index.ts";
import type { AuthContext } from "../../auth/auth-context.ts";
import type { ServiceContext } from "../../context.ts";
import { auditRecordCreate } from "../audit-record.ts";
import { assertCorrectable, assertCorrectionFields } from "../corrections.ts";
import { baseValues } from "../record-base.ts";
import { assertRecordProject } from "../record-project.ts";
import { type LabResultDto, type LabResultInput, toLabResultDto } from "./lab-result-dto.ts";

/** Records a laboratory analysis of a crude sample (API gravity, BS&W, viscosity). */
export function createLabResult(ctx: ServiceContext, auth: AuthContext, input: LabResultInput): LabResultDto {
  assertCorrectionFields(input);
  const now = ctx.clock.now();
  return ctx.db.transaction((tx) => {
    assertRecordProject(tx, auth, input.project_id);
    assertCorrectable(tx, labResults, input, "lab result");
    const row = tx
      .insert(labResults)
      .values({
        ...baseValues(input, auth, now),
        sampleDate: new Date(input.sample_date),
        apiGravity: input.api_gravity,
        bswPct: input.bsw_pct ?? null,
        viscosityCp: input.viscosity_cp ?? null,
      })
      .returning()
      .get();
    const dto = toLabResultDto(row, null);
    auditRecordCreate(tx, auth, "lab_result", dto, now);
    return dto;
  });
}
