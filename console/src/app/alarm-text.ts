import { commLossLimit } from "../../../shared/alarms/comm-loss-message.ts";
import type { Alarm } from "../api/types.ts";
import type { Formats } from "../i18n/format.ts";
import type { I18n } from "../i18n/i18n.ts";

/**
 * An alarm's text in the console's language. A rule's alarm reads "name: variable = value (> limit)",
 * names and symbols only, shown as the server wrote it; a communication loss is the server's own
 * English sentence, so it is worded here from its figures (the value is the silence in seconds).
 */
export function alarmText(
  alarm: Pick<Alarm, "alarm_type" | "message"> & { value: number | null },
  i18n: I18n,
  formats?: Formats,
): string {
  if (alarm.alarm_type !== "comm_loss" || alarm.value === null) return alarm.message;
  const number = (n: number) => (formats ? formats.number(n) : String(n));
  const limit = commLossLimit(alarm.message);
  const asset = alarm.message.slice(0, Math.max(0, alarm.message.lastIndexOf(": no data for ")));
  const params = { asset, seconds: number(alarm.value) };
  return limit === null
    ? i18n.t("alarms.commLossText", params)
    : i18n.t("alarms.commLossTextLimit", { ...params, limit: number(limit) });
}
