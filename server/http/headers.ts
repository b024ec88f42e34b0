import type { MiddlewareHandler } from "hono";

/** Spec §9: every response, on every path, carries these. */
export const VERSION_HEADERS = { "X-API-Version": "1", "X-Powered-By": "Caudal/1.0" } as const;

export const versionHeaders: MiddlewareHandler = async (c, next) => {
  await next();
  for (const [k, v] of Object.entries(VERSION_HEADERS)) c.res.headers.set(k, v);
};
