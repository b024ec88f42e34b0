import { textLogLine } from "../shared/text-log.ts";

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;
export type LogLevel = keyof typeof LEVELS;
/** `json`: one object per line, for machines (journald, log shippers). `text`: for a person at a console. */
export type LogFormat = "json" | "text";

export type Logger = {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
};

/** Whether a logger at `threshold` writes an entry at `level`. */
export function logLevelEnabled(threshold: LogLevel, level: Exclude<LogLevel, "silent">): boolean {
  return LEVELS[level] >= LEVELS[threshold];
}

/** One line per entry on stdout (by default). Callers never pass secrets or tokens. */
export function createLogger(
  level: LogLevel,
  write: (line: string) => void = (l) => process.stdout.write(l),
  format: LogFormat = "json",
): Logger {
  const threshold = LEVELS[level];
  const log = (lvl: Exclude<LogLevel, "silent">) => (msg: string, fields?: Record<string, unknown>) => {
    if (LEVELS[lvl] < threshold) return;
    const time = new Date();
    write(
      format === "text"
        ? textLogLine(time, lvl, msg, fields)
        : `${JSON.stringify({ time: time.toISOString(), level: lvl, msg, ...fields })}\n`,
    );
  };
  return { debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error") };
}
