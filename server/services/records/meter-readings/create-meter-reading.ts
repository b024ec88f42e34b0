import type { AuthContext } from "../../auth/auth-context.ts";
import type { ServiceContext } from "../../context.ts";
import { visibleProject } from "../../field/lookup.ts";
import { auditRecordCreate } from "../audit-record.ts";
import { assertCorrectable, assertCorrectionFields } from "../corrections.ts";
import { assertRecordAsset } from "../record-asset.ts";
import { baseValues } from "../record-base.ts";
import { type MeterReadingDto, type MeterReadingInput, toMeterReadingDto } from "./meter-reading-dto.ts";

/** Records a meter reading; `meter_id` must be an asset of type meter in the same project. */
export async function createMeterReading(
  ctx: ServiceContext,
  auth: AuthContext,
  input: MeterReadingInput,
): Promise<MeterReadingDto> {
  assertCorrectionFields(input);
  const now = ctx.clock.now();
  return ctx.store.transaction(async (tx) => {
    await visibleProject(tx.field, auth, input.project_id);
    await assertRecordAsset(tx.records, "meter_id", input.project_id, input.meter_id, "meter");
    await assertCorrectable(tx.records, "meter_reading", input, "meter reading");
    const row = await tx.records.append("meter_reading", {
      ...baseValues(input, auth, now),
      meterId: input.meter_id,
      readingValue: input.reading_value,
      readAt: new Date(input.read_at),
      unit: input.unit?.trim() || null,
    });
    const dto = toMeterReadingDto(row, null);
    await auditRecordCreate(tx.audit, auth, "meter_reading", dto, now);
    return dto;
  });
}
