import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { HttpError } from "./errors.ts";

/**
 * The largest body any operation takes: a telemetry batch (services/telemetry/limits.ts,
 * MAX_BODY_BYTES). Without a ceiling a body is read whole into memory and parsed before any
 * validator runs: 128 MiB sent to POST /api/auth/login cost the server 600 MB.
 */
export const REQUEST_BODY_MAX_BYTES = 8 * 1024 * 1024;

/** The public auth operations take a few short fields; anyone may call them. */
export const AUTH_BODY_MAX_BYTES = 64 * 1024;

/** 413 PayloadTooLarge for a body over `maxBytes`, before it is read (by Content-Length) or as it streams. */
export function requestBodyLimit(maxBytes: number): MiddlewareHandler {
  const unit = maxBytes >= 1024 * 1024 ? `${maxBytes / 1024 / 1024} MiB` : `${maxBytes / 1024} KiB`;
  const tooLarge = () => {
    // The rest of the body is not read, so the connection cannot carry another request: say so
    // (RFC 9110 §15.5.14, RFC 9112 §9.6) rather than let a keep-alive client reuse a closing socket.
    throw new HttpError("PayloadTooLarge", `the request body must be at most ${unit}`, {
      Connection: "close",
    });
  };
  const streamed = bodyLimit({ maxSize: maxBytes, onError: tooLarge });
  return async (c, next) => {
    // hono's bodyLimit asks for `c.req.raw.body` first, which makes @hono/node-server build a full
    // Request with a web stream of the body (~15% of an ingest request's CPU, profiled): decide
    // here what it would, from the headers, whenever that needs no body.
    const method = c.req.method;
    if (method === "GET" || method === "HEAD") return next();
    const length = c.req.header("content-length");
    if (length !== undefined && c.req.header("transfer-encoding") === undefined) {
      return Number.parseInt(length, 10) > maxBytes ? tooLarge() : next();
    }
    return streamed(c, next);
  };
}
