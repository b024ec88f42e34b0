import { badRequest } from "../../../errors.ts";
import { downtime } from "../../../store/sqlite/schema/index.ts";
import type { AuthContext } from "../../auth/auth-context.ts";
import type { ServiceContext } from "../../context.ts";
import { auditRecordCreate } from "../audit-record.ts";
import { assertCorrectable, assertCorrectionFields } from "../corrections.ts";
import { baseValues } from "../record-base.ts";
import { assertRecordProject } from "../record-project.ts";
import { type DowntimeDto, type DowntimeInput, toDowntimeDto } from "./downtime-dto.ts";

/**
 * Records a downtime period. Records are never edited, so closing an open downtime is a
 * correction: a new record that supersedes it and carries `ended_at`.
 */
export function createDowntime(ctx: ServiceContext, auth: AuthContext, input: DowntimeInput): DowntimeDto {
  const startedAt = new Date(input.started_at);
  const endedAt = input.ended_at ? new Date(input.ended_at) : null;
  if (endedAt && endedAt.getTime() < startedAt.getTime()) {
    throw badRequest("ended_at: must not be before started_at");
  }
  assertCorrectionFields(input);
  const now = ctx.clock.now();
  return ctx.db.transaction((tx) => {
    assertRecordProject(tx, auth, input.project_id);
    assertCorrectable(tx, downtime, input, "downtime record");
    const row = tx
      .insert(downtime)
      .values({ ...baseValues(input, auth, now), reason: input.reason.trim(), startedAt, endedAt })
      .returning()
      .get();
    const dto = toDowntimeDto(row, null);
    auditRecordCreate(tx, auth, "downtime", dto, now);
    return dto;
  });
}
