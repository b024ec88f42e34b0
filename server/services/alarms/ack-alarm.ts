import { notFound } from "../../errors.ts";
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
export async function acknowledgeAlarm(
  ctx: ServiceContext,
  auth: AuthContext,
  id: string,
): Promise<AlarmDto> {
  const now = ctx.clock.now();
  const { row, changed } = await ctx.store.transaction(async (tx) => {
    const current = await visibleAlarm(tx.alarms, auth, id);
    if (current.acknowledged) return { row: current, changed: false };
    const row = await tx.alarms.acknowledge(id, now, auth.userId);
    if (row) return { row, changed: true };
    // Acknowledged (or deleted) by someone else since it was read: answer it as it now is.
    const latest = await tx.alarms.alarm(id);
    if (!latest) throw notFound("alarm");
    return { row: latest, changed: false };
  });
  if (changed) publishAlarms(ctx, "acknowledged", [row]);
  return toAlarmDto(row);
}
