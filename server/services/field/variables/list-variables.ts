import { asc, eq } from "drizzle-orm";
import { variables } from "../../../store/sqlite/schema/index.ts";
import type { AuthContext } from "../../auth/auth-context.ts";
import type { ServiceContext } from "../../context.ts";
import { toVariableDto, type VariableDto } from "../dto.ts";
import { visibleDevice, visibleVariable } from "../lookup.ts";

export function getVariable(ctx: ServiceContext, auth: AuthContext, id: string): VariableDto {
  return toVariableDto(visibleVariable(ctx.db, auth, id).variable);
}

/** 404 when the device is unknown or outside the caller's projects. */
export function listDeviceVariables(ctx: ServiceContext, auth: AuthContext, deviceId: string): VariableDto[] {
  visibleDevice(ctx.db, auth, deviceId);
  return ctx.db
    .select()
    .from(variables)
    .where(eq(variables.deviceId, deviceId))
    .orderBy(asc(variables.alias), asc(variables.id))
    .all()
    .map(toVariableDto);
}
