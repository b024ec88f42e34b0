import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { alarmEvents, alarms } from "../../store/sqlite/schema/index.ts";
import type { AuthContext } from "../auth/auth-context.ts";
import type { ServiceContext } from "../context.ts";
import { type AlarmDto, toAlarmDto } from "./alarm-dto.ts";
import { publishAlarms } from "./publish.ts";
import { visibleAlarm } from "./visible.ts";

/**
 * Acknowledges an alarm, recording who and when (ISA-18.2: acknowledgement is independent of
 * return to normal). Idempotent: acknowledging again answers the alarm as it is, keeping the
 * first acknowledgement and writing nothing.
 */
export function acknowledgeAlarm(ctx: ServiceContext, auth: AuthContext, id: string): AlarmDto {
  const now = ctx.clock.now();
  const { row, changed } = ctx.db.transaction((tx) => {
    const current = visibleAlarm(tx, auth, id);
    if (current.acknowledged) return { row: current, changed: false };
    const row = tx
      .update(alarms)
      .set({ acknowledged: true, acknowledgedAt: now, acknowledgedBy: auth.userId })
      .where(eq(alarms.id, id))
      .returning()
      .get();
    tx.insert(alarmEvents)
      .values({
        id: randomUUID(),
        alarmId: id,
        event: "acknowledged",
        at: now,
        value: null,
        userId: auth.userId,
      })
      .run();
    return { row, changed: true };
  });
  if (changed) publishAlarms(ctx, "acknowledged", [row]);
  return toAlarmDto(row);
}
