import { and, eq, inArray, isNotNull, max } from "drizzle-orm";
import type { Db } from "../../store/sqlite/client.ts";
import { alarms, projects, telemetrySeries } from "../../store/sqlite/schema/index.ts";

export type OpenAlarm = {
  id: string;
  ruleId: string | null;
  assetId: string | null;
  alarmType: string;
  raisedAt: number;
};

/**
 * The server's active alarms, read once at start so a restart does not raise again what is already
 * active. The project subquery lets SQLite use the (project_id, active, acknowledged) index.
 */
export function loadOpenAlarms(db: Db): OpenAlarm[] {
  return db
    .select({
      id: alarms.id,
      ruleId: alarms.ruleId,
      assetId: alarms.assetId,
      alarmType: alarms.alarmType,
      timestamp: alarms.timestamp,
    })
    .from(alarms)
    .where(
      and(
        inArray(alarms.projectId, db.select({ id: projects.id }).from(projects)),
        eq(alarms.active, true),
        eq(alarms.source, "server"),
      ),
    )
    .all()
    .map((r) => ({ ...r, raisedAt: r.timestamp.getTime() }));
}

/** When each asset last reported (telemetry_series.last_ts, epoch ms), for comm_loss. */
export function loadLastReports(db: Db): { assetId: string; lastTs: number }[] {
  const rows = db
    .select({
      assetId: telemetrySeries.assetId,
      lastTs: max(telemetrySeries.lastTs),
    })
    .from(telemetrySeries)
    .where(isNotNull(telemetrySeries.lastTs))
    .groupBy(telemetrySeries.assetId)
    .all();
  return rows.flatMap((r) => (r.lastTs === null ? [] : [{ assetId: r.assetId, lastTs: Number(r.lastTs) }]));
}
