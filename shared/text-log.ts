/** The levels a text log line can carry (the server's logger and the agent's log). */
export type TextLogLevel = "debug" | "info" | "warn" | "error";

/**
 * One log entry for a person at a console: `HH:MM:SS message key=value…`, with `WARN` or `ERROR`
 * before the message when it is one. Fields are kept (`storage engine=sqlite database=…`,
 * `http listening host=… port=…`), except on an info or debug line tagged with an `event`: such a
 * line (server/activity/activity-log.ts) is written whole for people, naming the alarm, project or
 * agent, and its fields are for machines (`LOG_FORMAT=json`).
 */
export function textLogLine(
  time: Date,
  level: TextLogLevel,
  message: string,
  fields: Record<string, unknown> = {},
): string {
  const clock = time.toTimeString().slice(0, 8);
  const quiet = level === "info" || level === "debug";
  const pairs =
    quiet && fields.event !== undefined
      ? []
      : Object.entries(fields)
          .filter(([, v]) => v !== undefined)
          .map(
            ([k, v]) =>
              `${k}=${typeof v === "string" && v !== "" && !/[\s"=]/.test(v) ? v : JSON.stringify(v)}`,
          );
  const head = quiet ? [clock] : [clock, level.toUpperCase()];
  return `${[...head, message.replace(/\n/g, " "), ...pairs].join(" ")}\n`;
}
