import type { MiddlewareHandler } from "hono";
import { AppError } from "../errors.ts";
import { resolveAccessToken } from "../services/auth/sessions.ts";
import type { ServiceContext } from "../services/context.ts";
import type { AppEnv } from "./env.ts";

const messages = {
  missing: "a bearer access token is required",
  invalid: "the access token is invalid",
  expired: "the access token has expired; refresh it with POST /api/auth/refresh",
  revoked: "the session behind this access token has ended",
} as const;

/** Bearer authentication: sets `auth`, or 401. */
export function requireAuth(ctx: ServiceContext): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const header = c.req.header("authorization");
    const match = header ? /^Bearer\s+(\S+)$/i.exec(header) : null;
    if (!match?.[1]) throw new AppError("Unauthorized", messages.missing);
    const resolved = await resolveAccessToken(ctx, match[1]);
    if (!resolved.ok) {
      throw new AppError(
        resolved.reason === "expired" ? "TokenExpired" : "Unauthorized",
        messages[resolved.reason],
      );
    }
    c.set("auth", resolved.auth);
    await next();
  };
}
