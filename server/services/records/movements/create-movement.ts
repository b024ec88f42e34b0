import type { AuthContext } from "../../auth/auth-context.ts";
import type { ServiceContext } from "../../context.ts";
import { visibleProject } from "../../field/lookup.ts";
import { auditRecordCreate } from "../audit-record.ts";
import { assertCorrectable, assertCorrectionFields } from "../corrections.ts";
import { baseValues } from "../record-base.ts";
import { type MovementDto, type MovementInput, toMovementDto } from "./movement-dto.ts";

/** Records a fluid movement (ANH 0651), or a correction of one, with its audit entry. */
export async function createMovement(
  ctx: ServiceContext,
  auth: AuthContext,
  input: MovementInput,
): Promise<MovementDto> {
  assertCorrectionFields(input);
  const now = ctx.clock.now();
  return ctx.store.transaction(async (tx) => {
    await visibleProject(tx.field, auth, input.project_id);
    await assertCorrectable(tx.records, "movement", input, "movement");
    const row = await tx.records.append("movement", {
      ...baseValues(input, auth, now),
      movementType: input.movement_type,
      volumeBbls: input.volume_bbls,
      timestamp: new Date(input.timestamp),
      notes: input.notes?.trim() || null,
    });
    const dto = toMovementDto(row, null);
    await auditRecordCreate(tx.audit, auth, "movement", dto, now);
    return dto;
  });
}
