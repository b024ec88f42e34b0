import type { MiddlewareHandler } from "hono";

/** OWASP Secure Headers Project: set on every response, whatever its status or origin. */
export const SECURITY_HEADERS = {
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
} as const;

/**
 * Security headers on every response. X-Frame-Options is DENY unless the route set its own (a page
 * that must be framed says SAMEORIGIN). Responses under /api carry tokens (login, refresh, setup,
 * two-factor secrets, agent tokens) or field data: they are `no-store` (RFC 9111 §5.2.2.5) unless
 * the route chose its own Cache-Control; a response that sets a cookie is `no-store` everywhere.
 */
export const securityHeaders: MiddlewareHandler = async (c, next) => {
  await next();
  const headers = c.res.headers;
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) headers.set(name, value);
  if (!headers.has("X-Frame-Options")) headers.set("X-Frame-Options", "DENY");
  const api = c.req.path.startsWith("/api/");
  if (headers.has("Set-Cookie") || (api && !headers.has("Cache-Control")))
    headers.set("Cache-Control", "no-store");
};
