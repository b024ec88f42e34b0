import type { AuthContext } from "../../auth/auth-context.ts";
import type { ServiceContext } from "../../context.ts";
import { type DeviceDto, toDeviceDto } from "../dto.ts";
import { visibleAsset, visibleDevice } from "../lookup.ts";

export async function getDevice(ctx: ServiceContext, auth: AuthContext, id: string): Promise<DeviceDto> {
  return toDeviceDto((await visibleDevice(ctx.store.field, auth, id)).device);
}

/** 404 when the asset is unknown or outside the caller's projects. */
export async function listAssetDevices(
  ctx: ServiceContext,
  auth: AuthContext,
  assetId: string,
): Promise<DeviceDto[]> {
  await visibleAsset(ctx.store.field, auth, assetId);
  return (await ctx.store.field.devicesOf([assetId])).map(toDeviceDto);
}
