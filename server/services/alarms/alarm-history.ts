import { and, desc, eq, gte, lte, sql } from "drizzle-orm";
import { notFound } from "../../errors.ts";
import { alarmEvents, alarms } from "../../store/sqlite/schema/index.ts";
import type { AuthContext } from "../auth/auth-context.ts";
import type { ServiceContext } from "../context.ts";
import { visibleAssetRow } from "../field/lookup.ts";
import type { AlarmRow } from "./alarm-dto.ts";
import { assertVisibleProject } from "./visible.ts";

export type AlarmHistoryQuery = {
  projectId: string;
  from?: Date | undefined;
  to?: Date | undefined;
  assetId?: string | undefined;
  severity?: AlarmRow["severity"] | undefined;
  alarmType?: AlarmRow["alarmType"] | undefined;
  limit: number;
};

export type AlarmHistoryEntry = {
  id: string;
  alarm_id: string;
  event: "raised" | "cleared" | "acknowledged";
  at: string;
  /** The reading that raised or returned it; null for acknowledgements and rule-driven returns. */
  value: number | null;
  user_id: string | null;
  project_id: string;
  asset_id: string | null;
  rule_id: string | null;
  variable: string;
  alarm_type: AlarmRow["alarmType"];
  severity: AlarmRow["severity"];
  message: string;
};

/**
 * Every raise, return to normal and acknowledgement of a project's alarms between `from` and `to`
 * (both inclusive), optionally of one asset, severity or type, newest first. Clearing never
 * deletes history.
 */
export function alarmHistory(
  ctx: ServiceContext,
  auth: AuthContext,
  q: AlarmHistoryQuery,
): AlarmHistoryEntry[] {
  assertVisibleProject(ctx.db, auth, q.projectId);
  // An asset of another project is as unknown as one that does not exist.
  if (q.assetId && visibleAssetRow(ctx.db, auth, q.assetId).projectId !== q.projectId)
    throw notFound("asset");
  const rows = ctx.db
    .select({ event: alarmEvents, alarm: alarms })
    .from(alarmEvents)
    .innerJoin(alarms, eq(alarms.id, alarmEvents.alarmId))
    .where(
      and(
        eq(alarms.projectId, q.projectId),
        q.from ? gte(alarmEvents.at, q.from) : undefined,
        q.to ? lte(alarmEvents.at, q.to) : undefined,
        q.assetId ? eq(alarms.assetId, q.assetId) : undefined,
        q.severity ? eq(alarms.severity, q.severity) : undefined,
        q.alarmType ? eq(alarms.alarmType, q.alarmType) : undefined,
      ),
    )
    // rowid breaks ties between events of one instant in the order they were written.
    .orderBy(desc(alarmEvents.at), desc(sql`${alarmEvents}.rowid`))
    .limit(q.limit)
    .all();
  return rows.map(({ event, alarm }) => ({
    id: event.id,
    alarm_id: event.alarmId,
    event: event.event,
    at: event.at.toISOString(),
    value: event.value,
    user_id: event.userId,
    project_id: alarm.projectId,
    asset_id: alarm.assetId,
    rule_id: alarm.ruleId,
    variable: alarm.variable,
    alarm_type: alarm.alarmType,
    severity: alarm.severity,
    message: alarm.message,
  }));
}
