import { meterReadings } from "../../../store/sqlite/schema/index.ts";
import type { AuthContext } from "../../auth/auth-context.ts";
import type { ServiceContext } from "../../context.ts";
import { auditRecordCreate } from "../audit-record.ts";
import { assertCorrectable, assertCorrectionFields } from "../corrections.ts";
import { assertRecordAsset } from "../record-asset.ts";
import { baseValues } from "../record-base.ts";
import { assertRecordProject } from "../record-project.ts";
import { type MeterReadingDto, type MeterReadingInput, toMeterReadingDto } from "./meter-reading-dto.ts";

/** Records a meter reading; `meter_id` must be an asset of type meter in the same project. */
export function createMeterReading(
  ctx: ServiceContext,
  auth: AuthContext,
  input: MeterReadingInput,
): MeterReadingDto {
  assertCorrectionFields(input);
  const now = ctx.clock.now();
  return ctx.db.transaction((tx) => {
    assertRecordProject(tx, auth, input.project_id);
    assertRecordAsset(tx, "meter_id", input.project_id, input.meter_id, "meter");
    assertCorrectable(tx, meterReadings, input, "meter reading");
    const row = tx
      .insert(meterReadings)
      .values({
        ...baseValues(input, auth, now),
        meterId: input.meter_id,
        readingValue: input.reading_value,
        readAt: new Date(input.read_at),
        unit: input.unit?.trim() || null,
      })
      .returning()
      .get();
    const dto = toMeterReadingDto(row, null);
    auditRecordCreate(tx, auth, "meter_reading", dto, now);
    return dto;
  });
}
