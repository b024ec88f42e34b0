import type { AlarmStore } from "../../store/ports/alarm-store.ts";
import type { AlarmsSection } from "./content-schema.ts";
import type { ProductionDay } from "./production-day.ts";

/**
 * Alarms raised during the day (by the server's evaluator or an agent's), with their state when
 * the report was generated. Every alarm type is present in `by_type`, 0 when none.
 */
export async function collectAlarms(
  alarms: AlarmStore,
  projectId: string,
  day: ProductionDay,
): Promise<AlarmsSection> {
  const rows = await alarms.raisedIn(projectId, new Date(day.startMs), new Date(day.endMs));
  const byType = { high: 0, low: 0, critical_high: 0, critical_low: 0, comm_loss: 0 };
  for (const r of rows) byType[r.alarmType] += 1;
  return {
    count: rows.length,
    by_type: byType,
    entries: rows.map((r) => ({
      id: r.id,
      asset_id: r.assetId,
      variable: r.variable,
      value: r.value,
      alarm_type: r.alarmType,
      severity: r.severity,
      message: r.message,
      raised_at: r.timestamp.toISOString(),
      returned_at: r.returnedAt?.toISOString() ?? null,
      acknowledged: r.acknowledged,
      source: r.source,
    })),
  };
}
