import type { Context, ErrorHandler, NotFoundHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import { AppError } from "../errors.ts";
import type { Logger } from "../logger.ts";
import { errorHeaders, statusOf } from "./errors.ts";

function send(c: Context, err: AppError): Response {
  for (const [k, v] of Object.entries(errorHeaders(err))) c.header(k, v);
  return c.json(err.body(), statusOf(err));
}

/** zod-openapi's media type gate answers 415 for any body not declared (every body is JSON). */
export const UNSUPPORTED_MEDIA_TYPE_MESSAGE =
  "the request body must be JSON (Content-Type: application/json)";

function fromFrameworkError(err: HTTPException): AppError {
  switch (err.status) {
    case 401:
      return new AppError("Unauthorized", err.message || "unauthorized");
    case 413:
      return new AppError("PayloadTooLarge", err.message || "payload too large");
    // RFC 9110 §15.5.16: the content is in a format this operation does not accept.
    case 415:
      return new AppError("UnsupportedMediaType", UNSUPPORTED_MEDIA_TYPE_MESSAGE);
    default:
      return new AppError("BadRequest", err.message || "bad request");
  }
}

/** The one error handler: AppError as is, framework 4xx mapped to stable codes, anything else a logged 500. */
export function onError(logger: Logger): ErrorHandler {
  return (err, c) => {
    if (err instanceof AppError) return send(c, err);
    if (err instanceof HTTPException && err.status < 500) return send(c, fromFrameworkError(err));
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
