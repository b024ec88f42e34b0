import type { AuthContext } from "../../auth/auth-context.ts";
import type { ServiceContext } from "../../context.ts";
import { toVariableDto, type VariableDto } from "../dto.ts";
import { visibleDevice, visibleVariable } from "../lookup.ts";

export async function getVariable(ctx: ServiceContext, auth: AuthContext, id: string): Promise<VariableDto> {
  return toVariableDto((await visibleVariable(ctx.store.field, auth, id)).variable);
}

/** 404 when the device is unknown or outside the caller's projects. */
export async function listDeviceVariables(
  ctx: ServiceContext,
  auth: AuthContext,
  deviceId: string,
): Promise<VariableDto[]> {
  await visibleDevice(ctx.store.field, auth, deviceId);
  return (await ctx.store.field.variablesOf([deviceId])).map(toVariableDto);
}
