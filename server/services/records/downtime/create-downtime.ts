import { badRequest } from "../../../errors.ts";
import type { AuthContext } from "../../auth/auth-context.ts";
import type { ServiceContext } from "../../context.ts";
import { visibleProject } from "../../field/lookup.ts";
import { auditRecordCreate } from "../audit-record.ts";
import { assertCorrectable, assertCorrectionFields } from "../corrections.ts";
import { baseValues } from "../record-base.ts";
import { type DowntimeDto, type DowntimeInput, toDowntimeDto } from "./downtime-dto.ts";

/**
 * Records a downtime period. Records are never edited, so closing an open downtime is a
 * correction: a new record that supersedes it and carries `ended_at`.
 */
export async function createDowntime(
  ctx: ServiceContext,
  auth: AuthContext,
  input: DowntimeInput,
): Promise<DowntimeDto> {
  const startedAt = new Date(input.started_at);
  const endedAt = input.ended_at ? new Date(input.ended_at) : null;
  if (endedAt && endedAt.getTime() < startedAt.getTime()) {
    throw badRequest("ended_at: must not be before started_at");
  }
  assertCorrectionFields(input);
  const now = ctx.clock.now();
  return ctx.store.transaction(async (tx) => {
    await visibleProject(tx.field, auth, input.project_id);
    await assertCorrectable(tx.records, "downtime", input, "downtime record");
    const row = await tx.records.append("downtime", {
      ...baseValues(input, auth, now),
      reason: input.reason.trim(),
      startedAt,
      endedAt,
    });
    const dto = toDowntimeDto(row, null);
    await auditRecordCreate(tx.audit, auth, "downtime", dto, now);
    return dto;
  });
}
