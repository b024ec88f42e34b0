import type { ServiceContext } from "../context.ts";
import { type AlarmRow, toAlarmDto } from "./alarm-dto.ts";

export type AlarmNoticeKind = "raised" | "cleared" | "acknowledged";

/**
 * Announces committed alarm transitions on ctx.events (CONTRIBUTING: events after commit). A
 * failing listener is logged, never thrown: the change is already stored and the caller (often
 * the telemetry hot path) must not fail because a live consumer did.
 */
export function publishAlarms(ctx: ServiceContext, event: AlarmNoticeKind, rows: readonly AlarmRow[]): void {
  for (const row of rows) {
    try {
      ctx.events.emit("alarm", { event, alarm: toAlarmDto(row) });
    } catch (err) {
      ctx.logger.error("alarm listener failed", {
        alarm_id: row.id,
        event,
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }
}
