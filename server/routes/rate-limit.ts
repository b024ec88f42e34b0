import { AppError } from "../http/errors.ts";
import type { RateLimiter } from "../services/auth/rate-limit.ts";
import type { ServiceContext } from "../services/context.ts";

/** 429 with Retry-After once a client IP and email pair exceeds LOGIN_RATE_LIMIT per minute. */
export function enforceRateLimit(
  limiter: RateLimiter,
  ctx: ServiceContext,
  ip: string | undefined,
  email: string,
): void {
  const wait = limiter.hit(`${ip ?? "?"}|${email.trim().toLowerCase()}`, ctx.clock.now().getTime());
  if (wait > 0) {
    throw new AppError("RateLimited", `too many attempts; retry in ${wait} s`, {
      headers: { "Retry-After": String(wait) },
    });
  }
}
