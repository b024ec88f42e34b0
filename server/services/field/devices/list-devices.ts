import { asc, eq } from "drizzle-orm";
import { devices } from "../../../store/sqlite/schema/index.ts";
import type { AuthContext } from "../../auth/auth-context.ts";
import type { ServiceContext } from "../../context.ts";
import { type DeviceDto, toDeviceDto } from "../dto.ts";
import { visibleAsset, visibleDevice } from "../lookup.ts";

export function getDevice(ctx: ServiceContext, auth: AuthContext, id: string): DeviceDto {
  return toDeviceDto(visibleDevice(ctx.db, auth, id).device);
}

/** 404 when the asset is unknown or outside the caller's projects. */
export function listAssetDevices(ctx: ServiceContext, auth: AuthContext, assetId: string): DeviceDto[] {
  visibleAsset(ctx.db, auth, assetId);
  return ctx.db
    .select()
    .from(devices)
    .where(eq(devices.assetId, assetId))
    .orderBy(asc(devices.name), asc(devices.id))
    .all()
    .map(toDeviceDto);
}
