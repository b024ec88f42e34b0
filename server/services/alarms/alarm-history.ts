import { notFound } from "../../errors.ts";
import type { AuthContext } from "../auth/auth-context.ts";
import type { ServiceContext } from "../context.ts";
import { visibleAsset } from "../field/lookup.ts";
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
 * (both inclusive), optionally of one asset, severity or type, newest first (events of one
 * instant: the last written first). Clearing never deletes history.
 */
export async function alarmHistory(
  ctx: ServiceContext,
  auth: AuthContext,
  q: AlarmHistoryQuery,
): Promise<AlarmHistoryEntry[]> {
  await assertVisibleProject(ctx.store.field, auth, q.projectId);
  // An asset of another project is as unknown as one that does not exist.
  if (q.assetId && (await visibleAsset(ctx.store.field, auth, q.assetId)).projectId !== q.projectId)
    throw notFound("asset");
  const rows = await ctx.store.alarms.history(q);
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
