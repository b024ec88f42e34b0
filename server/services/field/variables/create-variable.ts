import { randomUUID } from "node:crypto";
import { configChanged } from "../../agents/config-changed.ts";
import type { AuthContext } from "../../auth/auth-context.ts";
import type { ServiceContext } from "../../context.ts";
import { toVariableDto, type VariableDto } from "../dto.ts";
import type { VariableInput } from "../inputs.ts";
import { visibleDevice } from "../lookup.ts";
import { assertAddressing, assertAliasFree, variableColumns } from "./variable-columns.ts";

/** 404 when the device is unknown or outside the caller's projects; 409 when the alias is taken. */
export async function createVariable(
  ctx: ServiceContext,
  auth: AuthContext,
  deviceId: string,
  input: VariableInput,
): Promise<VariableDto> {
  const columns = variableColumns(input);
  const now = ctx.clock.now();
  const id = randomUUID();
  const { result, projectId } = await ctx.store.transaction(async (tx) => {
    const { device, projectId } = await visibleDevice(tx.field, auth, deviceId, "key share");
    assertAddressing(device.protocol, columns);
    await assertAliasFree(tx.field, device, columns.alias);
    const row = await tx.field.insertVariable({
      id,
      deviceId: device.id,
      ...columns,
      createdAt: now,
      updatedAt: now,
    });
    const dto = toVariableDto(row);
    await tx.audit.append({
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
