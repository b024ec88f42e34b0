import { movements } from "../../../store/sqlite/schema/index.ts";
import type { AuthContext } from "../../auth/auth-context.ts";
import type { ServiceContext } from "../../context.ts";
import { auditRecordCreate } from "../audit-record.ts";
import { assertCorrectable, assertCorrectionFields } from "../corrections.ts";
import { baseValues } from "../record-base.ts";
import { assertRecordProject } from "../record-project.ts";
import { type MovementDto, type MovementInput, toMovementDto } from "./movement-dto.ts";

/** Records a fluid movement (ANH 0651), or a correction of one, with its audit entry. */
export function createMovement(ctx: ServiceContext, auth: AuthContext, input: MovementInput): MovementDto {
  assertCorrectionFields(input);
  const now = ctx.clock.now();
  return ctx.db.transaction((tx) => {
    assertRecordProject(tx, auth, input.project_id);
    assertCorrectable(tx, movements, input, "movement");
    const row = tx
      .insert(movements)
      .values({
        ...baseValues(input, auth, now),
        movementType: input.movement_type,
        volumeBbls: input.volume_bbls,
        timestamp: new Date(input.timestamp),
        notes: input.notes?.trim() || null,
      })
      .returning()
      .get();
    const dto = toMovementDto(row, null);
    auditRecordCreate(tx, auth, "movement", dto, now);
    return dto;
  });
}
