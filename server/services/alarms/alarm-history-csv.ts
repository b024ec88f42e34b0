import { CRLF, csvField } from "../telemetry/csv-field.ts";
import type { AlarmHistoryEntry } from "./alarm-history.ts";

const COLUMNS = [
  "at",
  "event",
  "severity",
  "alarm_type",
  "asset_id",
  "variable",
  "value",
  "message",
  "alarm_id",
  "user_id",
] as const satisfies readonly (keyof AlarmHistoryEntry)[];

/** RFC 4180 text of alarm history entries, in the order given, with a header line. */
export function alarmHistoryCsv(entries: readonly AlarmHistoryEntry[]): string {
  const lines = [COLUMNS.join(",")];
  for (const e of entries) {
    lines.push(COLUMNS.map((c) => csvField(e[c] === null ? "" : String(e[c]))).join(","));
  }
  return lines.join(CRLF) + CRLF;
}
