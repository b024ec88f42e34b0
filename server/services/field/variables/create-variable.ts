import { randomUUID } from "node:crypto";
import { appendAudit } from "../../../store/sqlite/append-audit.ts";
import { variables } from "../../../store/sqlite/schema/index.ts";
import { configChanged } from "../../agents/config-changed.ts";
import type { AuthContext } from "../../auth/auth-context.ts";
import type { ServiceContext } from "../../context.ts";
import { toVariableDto, type VariableDto } from "../dto.ts";
import type { VariableInput } from "../inputs.ts";
import { visibleDevice } from "../lookup.ts";
import { assertAddressing, assertAliasFree, variableColumns } from "./variable-columns.ts";

/** 404 when the device is unknown or outside the caller's projects; 409 when the alias is taken. */
export function createVariable(
  ctx: ServiceContext,
  auth: AuthContext,
  deviceId: string,
  input: VariableInput,
): VariableDto {
  const columns = variableColumns(input);
  const now = ctx.clock.now();
  const id = randomUUID();
  const { result, projectId } = ctx.db.transaction((tx) => {
    const { device, projectId } = visibleDevice(tx, auth, deviceId);
    assertAddressing(device.protocol, columns);
    assertAliasFree(tx, device.id, columns.alias);
    const row = tx
      .insert(variables)
      .values({ id, deviceId: device.id, ...columns, createdAt: now, updatedAt: now })
      .returning()
      .get();
    const dto = toVariableDto(row);
    appendAudit(tx, {
      at: now,
      userId: auth.userId,
      projectId,
      entity: "variable",
      entityId: id,
      action: "create",
      before: null,
      after: dto,
    });
    return { result: dto, projectId };
  });
  configChanged(ctx, projectId);
  return result;
}
