import { eq } from "drizzle-orm";
import type { DbOrTx } from "../../store/sqlite/append-audit.ts";
import { users } from "../../store/sqlite/schema/index.ts";
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
  onSuccess: (tx: DbOrTx) => T,
): T {
  if (TOTP_CODE.test(code)) return checkTotp(ctx, userId, code, onSuccess);
  const now = ctx.clock.now();
  return ctx.db.transaction((tx) => {
    const u = tx.select({ lockedUntil: users.totpLockedUntil }).from(users).where(eq(users.id, userId)).get();
    if (u?.lockedUntil && u.lockedUntil > now) throw accountLocked(u.lockedUntil);
    consumeRecoveryCode(tx, userId, code);
    return onSuccess(tx);
  });
}
