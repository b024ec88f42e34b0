import { randomUUID } from "node:crypto";
import { createWriteStream, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { MiddlewareHandler } from "hono";
import { createLogger, type Logger, type LogLevel } from "../logger.ts";
import type { AppEnv } from "./env.ts";

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * One JSON line per request. Only the path is logged, never the query string: WebSocket
 * clients pass their token there.
 */
export function requestLog(logger: Logger): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    const incoming = c.req.header("x-request-id");
    const requestId = incoming && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    c.set("requestId", requestId);
    await next();
    c.res.headers.set("X-Request-Id", requestId);
    logger.info("request", {
      request_id: requestId,
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      duration_ms: Math.round((performance.now() - started) * 100) / 100,
      user_id: c.get("auth")?.userId,
    });
  };
}

export type RequestLogFile = { logger: Logger; close(): Promise<void> };

/**
 * The request log in a file of its own (REQUEST_LOG_FILE), so that a console stays readable under
 * `npm start`: JSON lines appended, the file private (0600) as it names users and paths.
 */
export function openRequestLogFile(path: string, level: LogLevel, logger: Logger): RequestLogFile {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const stream = createWriteStream(path, { flags: "a", mode: 0o600 });
  let failed = false;
  stream.on("error", (err) => {
    // A full disk must not stop the API: say so once, then the lines are lost.
    if (!failed) logger.error("request log file failed", { path, error: err.message });
    failed = true;
  });
  return {
    logger: createLogger(level, (line) => {
      if (!failed) stream.write(line);
    }),
    close: () => new Promise((resolve) => stream.end(() => resolve())),
  };
}
