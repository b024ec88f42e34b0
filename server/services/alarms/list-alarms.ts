import type { AuthContext } from "../auth/auth-context.ts";
import type { ServiceContext } from "../context.ts";
import { type AlarmDto, toAlarmDto } from "./alarm-dto.ts";
import { assertVisibleProject } from "./visible.ts";

/**
 * GET /alarms: the alarms still listed. ISA-18.2: an alarm leaves the list only once it has both
 * returned to normal and been acknowledged; active-acknowledged and returned-unacknowledged stay.
 * Newest first.
 */
export async function listAlarms(
  ctx: ServiceContext,
  auth: AuthContext,
  projectId: string,
): Promise<AlarmDto[]> {
  await assertVisibleProject(ctx.store.field, auth, projectId);
  return (await ctx.store.alarms.listed(projectId)).map(toAlarmDto);
}
