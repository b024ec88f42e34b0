import type { Protocol } from "../../../../shared/field/data-types.ts";
import { describeProblems, variableProblems } from "../../../../shared/field/protocol-config.ts";
import { badRequest, notFound } from "../../../errors.ts";
import type { FieldStore } from "../../../store/ports/field-store.ts";
import { configChanged } from "../../agents/config-changed.ts";
import type { AuthContext } from "../../auth/auth-context.ts";
import type { ServiceContext } from "../../context.ts";
import { type DeviceDto, toDeviceDto } from "../dto.ts";
import type { DeviceInput } from "../inputs.ts";
import { visibleDevice } from "../lookup.ts";
import { deviceColumns } from "./create-device.ts";

/**
 * A device moving to another protocol keeps its variables only if each one's addressing holds
 * under the new protocol (issue 9 §1): otherwise a 400 naming the variable and field.
 */
async function assertVariablesFit(field: FieldStore, deviceId: string, protocol: Protocol): Promise<void> {
  const problems = (await field.variablesOf([deviceId])).flatMap((v) => {
    const addressing = {
      data_type: v.dataType,
      address: v.address,
      register_address: v.registerAddress,
      register_kind: v.registerKind,
    };
    const found = variableProblems(protocol, addressing, { requireAddress: false });
    return found.length > 0 ? [describeProblems(found, `variable "${v.alias}": `)] : [];
  });
  if (problems.length > 0) throw badRequest(problems.join("; "));
}

/** PUT semantics: the body replaces every writable field; the device stays on its asset. */
export async function replaceDevice(
  ctx: ServiceContext,
  auth: AuthContext,
  id: string,
  input: DeviceInput,
): Promise<DeviceDto> {
  const now = ctx.clock.now();
  const { result, projectId } = await ctx.store.transaction(async (tx) => {
    const current = await visibleDevice(tx.field, auth, id);
    if (current.device.protocol !== input.protocol) await assertVariablesFit(tx.field, id, input.protocol);
    const row = await tx.field.updateDevice(id, {
      ...deviceColumns(ctx.keys, id, input, current.device),
      updatedAt: now,
    });
    if (!row) throw notFound("device");
    const after = toDeviceDto(row);
    await tx.audit.append({
      at: now,
      userId: auth.userId,
      projectId: current.projectId,
      entity: "device",
      entityId: id,
      action: "update",
      before: toDeviceDto(current.device),
      after,
    });
    return { result: after, projectId: current.projectId };
  });
  configChanged(ctx, projectId);
  return result;
}
