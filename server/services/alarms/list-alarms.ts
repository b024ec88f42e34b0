import { and, desc, eq, or } from "drizzle-orm";
import { alarms } from "../../store/sqlite/schema/index.ts";
import type { AuthContext } from "../auth/auth-context.ts";
import type { ServiceContext } from "../context.ts";
import { type AlarmDto, toAlarmDto } from "./alarm-dto.ts";
import { assertVisibleProject } from "./visible.ts";

/**
 * GET /alarms: the alarms still listed. ISA-18.2: an alarm leaves the list only once it has both
 * returned to normal and been acknowledged; active-acknowledged and returned-unacknowledged stay.
 * Newest first.
 */
export function listAlarms(ctx: ServiceContext, auth: AuthContext, projectId: string): AlarmDto[] {
  assertVisibleProject(ctx.db, auth, projectId);
  return ctx.db
    .select()
    .from(alarms)
    .where(and(eq(alarms.projectId, projectId), or(eq(alarms.active, true), eq(alarms.acknowledged, false))))
    .orderBy(desc(alarms.timestamp), desc(alarms.createdAt), desc(alarms.id))
    .all()
    .map(toAlarmDto);
}
