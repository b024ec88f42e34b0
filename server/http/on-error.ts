import type { Context, ErrorHandler, NotFoundHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { Logger } from "../logger.ts";
import { AppError } from "./errors.ts";

function send(c: Context, err: AppError): Response {
  for (const [k, v] of Object.entries(err.headers)) c.header(k, v);
  return c.json(err.body(), err.status);
}

/** The one error handler: AppError as is, framework 4xx mapped to stable codes, anything else a logged 500. */
export function onError(logger: Logger): ErrorHandler {
  return (err, c) => {
    if (err instanceof AppError) return send(c, err);
    if (err instanceof HTTPException && err.status < 500) {
      const code =
        err.status === 400
          ? "BadRequest"
          : err.status === 401
            ? "Unauthorized"
            : err.status === 413
              ? "PayloadTooLarge"
              : "BadRequest";
      return send(c, new AppError(code, err.message || "bad request"));
    }
    logger.error("unhandled error", {
      request_id: c.get("requestId"),
      path: c.req.path,
      error: err instanceof Error ? err.message : String(err),
      stack: err instanceof Error ? err.stack : undefined,
    });
    return send(
      c,
      new AppError("Internal", "internal error; the request id identifies it in the server log"),
    );
  };
}

export const notFoundHandler: NotFoundHandler = (c) =>
  send(c, new AppError("NotFound", `no route for ${c.req.method} ${c.req.path}`));
