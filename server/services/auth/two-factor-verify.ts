import type { StorePorts } from "../../store/store.ts";
import type { ServiceContext } from "../context.ts";
import { accountLocked, checkTotp, consumeRecoveryCode } from "./login.ts";

/** A TOTP code is six digits; recovery codes are ten letters and digits, so the two never collide. */
const TOTP_CODE = /^\d{6}$/;

/**
 * Verifies a second factor, TOTP or recovery code, for a signed-in user with two-factor enabled,
 * and runs `onSuccess` in the same transaction. The login rules apply (spec §5): a locked account
 * gets AccountLocked, TOTP failures count towards the lockout, a used recovery code is deleted.
 */
export function withSecondFactor<T>(
  ctx: ServiceContext,
  userId: string,
  code: string,
  onSuccess: (tx: StorePorts) => Promise<T>,
): Promise<T> {
  if (TOTP_CODE.test(code)) return checkTotp(ctx, userId, code, onSuccess);
  const now = ctx.clock.now();
  return ctx.store.transaction(async (tx) => {
    const u = await tx.identity.user(userId);
    if (u?.totpLockedUntil && u.totpLockedUntil > now) throw accountLocked(u.totpLockedUntil);
    await consumeRecoveryCode(tx.identity, userId, code);
    return onSuccess(tx);
  });
}
