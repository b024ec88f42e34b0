import type { ServerConfig } from "../config.ts";
import { AppError } from "../errors.ts";
import { RateLimiter } from "../services/auth/rate-limit.ts";
import type { ServiceContext } from "../services/context.ts";

/**
 * The password-guessing limits: per client address and email (LOGIN_RATE_LIMIT), and per address
 * across emails (LOGIN_RATE_LIMIT_PER_ADDRESS), so one password cannot be sprayed over many
 * accounts from one address (OWASP Authentication Cheat Sheet, "Protect against automated attacks").
 */
export type LoginLimiters = { perAddressAndEmail: RateLimiter; perAddress: RateLimiter };

export function loginLimiters(config: ServerConfig): LoginLimiters {
  return {
    perAddressAndEmail: new RateLimiter(config.LOGIN_RATE_LIMIT),
    perAddress: new RateLimiter(config.LOGIN_RATE_LIMIT_PER_ADDRESS),
  };
}

/** Counts an attempt against both limits; 429 with Retry-After once either is exceeded. */
export function enforceRateLimit(
  limiters: LoginLimiters,
  ctx: ServiceContext,
  ip: string | undefined,
  email: string,
): void {
  const now = ctx.clock.now().getTime();
  const address = ip ?? "?";
  const wait = Math.max(
    limiters.perAddressAndEmail.hit(`${address}|${email.trim().toLowerCase()}`, now),
    limiters.perAddress.hit(address, now),
  );
  if (wait > 0) {
    throw new AppError("RateLimited", `too many attempts; retry in ${wait} s`, {
      retryAfterSeconds: wait,
    });
  }
}

/** Counts an attempt of a public operation against a per-address limit; 429 with Retry-After past it. */
export function enforceAddressRateLimit(
  limiter: RateLimiter,
  ctx: ServiceContext,
  ip: string | undefined,
): void {
  const wait = limiter.hit(ip ?? "?", ctx.clock.now().getTime());
  if (wait > 0) {
    throw new AppError("RateLimited", `too many attempts; retry in ${wait} s`, {
      retryAfterSeconds: wait,
    });
  }
}
