import { AppError } from "../../errors.ts";
import type { ServiceContext } from "../context.ts";
import type { AuthContext } from "./auth-context.ts";
import { accountLocked } from "./login.ts";
import { verifyPassword } from "./passwords.ts";
import { auditTwoFactor } from "./two-factor-audit.ts";
import { withSecondFactor } from "./two-factor-verify.ts";

export const twoFactorNotEnabled = () =>
  new AppError("Conflict", "two-factor authentication is not enabled for this account");

/**
 * Turns two-factor off after the password and a second factor (TOTP or recovery code) check out.
 * The secret and every recovery code are erased.
 */
export async function disableTwoFactor(
  ctx: ServiceContext,
  auth: AuthContext,
  input: { password: string; code: string },
): Promise<void> {
  const u = await ctx.store.identity.user(auth.userId);
  if (!u) throw new AppError("Unauthorized", "the account no longer exists");
  if (!u.twoFactorEnabled) throw twoFactorNotEnabled();
  // As at login (spec §5.6): a locked account answers AccountLocked before the password is looked at.
  if (u.totpLockedUntil && u.totpLockedUntil > ctx.clock.now()) throw accountLocked(u.totpLockedUntil);
  if (!(await verifyPassword(u.passwordHash, input.password))) {
    throw new AppError("InvalidCredentials", "the password is incorrect");
  }
  await withSecondFactor(ctx, u.id, input.code, async (tx) => {
    const now = ctx.clock.now();
    await tx.identity.updateUser(u.id, {
      twoFactorEnabled: false,
      twoFactorSecretEncrypted: null,
      twoFactorPendingSecretEncrypted: null,
      lastTotpStepUsed: null,
      totpFailedAttempts: 0,
      totpFirstFailureAt: null,
      totpLockedUntil: null,
      updatedAt: now,
    });
    await tx.identity.replaceRecoveryCodes(u.id, []);
    await auditTwoFactor(tx.audit, u.id, now, { two_factor_enabled: true }, { two_factor_enabled: false });
  });
}
