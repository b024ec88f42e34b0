import { eq } from "drizzle-orm";
import type { Protocol } from "../../../../shared/field/data-types.ts";
import { describeProblems, variableProblems } from "../../../../shared/field/protocol-config.ts";
import { badRequest, notFound } from "../../../errors.ts";
import type { DbOrTx } from "../../../store/sqlite/append-audit.ts";
import { appendAudit } from "../../../store/sqlite/append-audit.ts";
import { devices, variables } from "../../../store/sqlite/schema/index.ts";
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
function assertVariablesFit(db: DbOrTx, deviceId: string, protocol: Protocol): void {
  const problems = db
    .select()
    .from(variables)
    .where(eq(variables.deviceId, deviceId))
    .all()
    .flatMap((v) => {
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
export function replaceDevice(
  ctx: ServiceContext,
  auth: AuthContext,
  id: string,
  input: DeviceInput,
): DeviceDto {
  const now = ctx.clock.now();
  const { result, projectId } = ctx.db.transaction((tx) => {
    const current = visibleDevice(tx, auth, id);
    if (current.device.protocol !== input.protocol) assertVariablesFit(tx, id, input.protocol);
    const row = tx
      .update(devices)
      .set({ ...deviceColumns(ctx.keys, id, input, current.device), updatedAt: now })
      .where(eq(devices.id, id))
      .returning()
      .get();
    if (!row) throw notFound("device");
    const after = toDeviceDto(row);
    appendAudit(tx, {
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
