import { randomUUID } from "node:crypto";
import type { DeviceRow } from "../../../store/rows.ts";
import { configChanged } from "../../agents/config-changed.ts";
import type { AuthContext } from "../../auth/auth-context.ts";
import type { Keys, ServiceContext } from "../../context.ts";
import { type DeviceDto, toDeviceDto } from "../dto.ts";
import type { DeviceInput } from "../inputs.ts";
import { visibleAsset } from "../lookup.ts";
import { settingsColumns } from "./device-settings.ts";

/** `current`: the row being replaced (its stored OPC UA password is kept unless the body says otherwise). */
export function deviceColumns(keys: Keys, id: string, input: DeviceInput, current: DeviceRow | null = null) {
  return {
    name: input.name.trim(),
    protocol: input.protocol,
    host: input.host?.trim() || null,
    slaveId: input.slave_id ?? null,
    enabled: input.enabled ?? true,
    ...settingsColumns(keys, id, input, current),
  };
}

/** 404 when the asset is unknown or outside the caller's projects. */
export async function createDevice(
  ctx: ServiceContext,
  auth: AuthContext,
  assetId: string,
  input: DeviceInput,
): Promise<DeviceDto> {
  const now = ctx.clock.now();
  const id = randomUUID();
  const { result, projectId } = await ctx.store.transaction(async (tx) => {
    const asset = await visibleAsset(tx.field, auth, assetId, "key share");
    const columns = deviceColumns(ctx.keys, id, input);
    const row = await tx.field.insertDevice({
      id,
      assetId: asset.id,
      ...columns,
      createdAt: now,
      updatedAt: now,
    });
    const dto = toDeviceDto(row);
    await tx.audit.append({
      at: now,
      userId: auth.userId,
      projectId: asset.projectId,
      entity: "device",
      entityId: id,
      action: "create",
      before: null,
      after: dto,
    });
    return { result: dto, projectId: asset.projectId };
  });
  configChanged(ctx, projectId);
  return result;
}
