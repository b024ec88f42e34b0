import { AppError } from "../../errors.ts";
import type { ServiceContext } from "../context.ts";
import type { AuthContext } from "./auth-context.ts";
import { issueRecoveryCodes } from "./recovery-codes.ts";
import { open } from "./secret-box.ts";
import { verifyTotp } from "./totp.ts";
import { auditTwoFactor } from "./two-factor-audit.ts";
import { twoFactorAlreadyEnabled } from "./two-factor-setup.ts";

/**
 * Turns two-factor on once `code` verifies against the pending secret. The accepted step is
 * stored as last_totp_step_used (spec §5.7), so the same code cannot then log in. Returns the
 * recovery codes, in clear this once.
 */
export async function enableTwoFactor(
  ctx: ServiceContext,
  auth: AuthContext,
  code: string,
): Promise<string[]> {
  const now = ctx.clock.now();
  const outcome = await ctx.store.transaction(async (tx) => {
    const u = await tx.identity.user(auth.userId);
    if (!u) throw new AppError("Unauthorized", "the account no longer exists");
    if (u.twoFactorEnabled) throw twoFactorAlreadyEnabled();
    if (!u.twoFactorPendingSecretEncrypted) {
      throw new AppError("Conflict", "no two-factor setup is pending; call POST /api/auth/2fa/setup first");
    }
    const secret = open(ctx.keys.totp, u.twoFactorPendingSecretEncrypted, u.id);
    // A new secret starts a new replay history.
    const step = verifyTotp(secret, code, now, null);
    if (step === null) return null;
    await tx.identity.updateUser(u.id, {
      twoFactorEnabled: true,
      twoFactorSecretEncrypted: u.twoFactorPendingSecretEncrypted,
      twoFactorPendingSecretEncrypted: null,
      lastTotpStepUsed: step,
      totpFailedAttempts: 0,
      totpFirstFailureAt: null,
      totpLockedUntil: null,
      updatedAt: now,
    });
    const codes = await issueRecoveryCodes(tx.identity, u.id, now);
    await auditTwoFactor(tx.audit, u.id, now, { two_factor_enabled: false }, { two_factor_enabled: true });
    return codes;
  });
  // Setup is not a login: a wrong code here does not count towards the lockout.
  if (!outcome) throw new AppError("TwoFactorFailed", "the code does not match the pending secret");
  return outcome;
}
