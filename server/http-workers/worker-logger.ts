import { type Logger, type LogLevel, logLevelEnabled } from "../logger.ts";
import type { FromWorker, LogLevelName } from "./protocol.ts";

/**
 * A worker thread's logger: entries at or above `level` go to the main thread, which writes them
 * through its own logger (`server`) or request log (`request`), so that every line of the server
 * leaves by the same way.
 */
export function workerLogger(
  level: LogLevel,
  which: "server" | "request",
  send: (message: FromWorker) => void,
): Logger {
  const log =
    (lvl: LogLevelName) =>
    (msg: string, fields: Record<string, unknown> = {}) => {
      if (logLevelEnabled(level, lvl)) send({ t: "log", which, level: lvl, msg, fields });
    };
  return { debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error") };
}
