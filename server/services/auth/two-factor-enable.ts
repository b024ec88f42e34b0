import { eq } from "drizzle-orm";
import { AppError } from "../../errors.ts";
import { users } from "../../store/sqlite/schema/index.ts";
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
export function enableTwoFactor(ctx: ServiceContext, auth: AuthContext, code: string): string[] {
  const now = ctx.clock.now();
  const outcome = ctx.db.transaction((tx) => {
    const u = tx.select().from(users).where(eq(users.id, auth.userId)).get();
    if (!u) throw new AppError("Unauthorized", "the account no longer exists");
    if (u.twoFactorEnabled) throw twoFactorAlreadyEnabled();
    if (!u.twoFactorPendingSecretEncrypted) {
      throw new AppError("Conflict", "no two-factor setup is pending; call POST /api/auth/2fa/setup first");
    }
    const secret = open(ctx.keys.totp, u.twoFactorPendingSecretEncrypted, u.id);
    // A new secret starts a new replay history.
    const step = verifyTotp(secret, code, now, null);
    if (step === null) return null;
    tx.update(users)
      .set({
        twoFactorEnabled: true,
        twoFactorSecretEncrypted: u.twoFactorPendingSecretEncrypted,
        twoFactorPendingSecretEncrypted: null,
        lastTotpStepUsed: step,
        totpFailedAttempts: 0,
        totpFirstFailureAt: null,
        totpLockedUntil: null,
        updatedAt: now,
      })
      .where(eq(users.id, u.id))
      .run();
    const codes = issueRecoveryCodes(tx, u.id, now);
    auditTwoFactor(tx, u.id, now, { two_factor_enabled: false }, { two_factor_enabled: true });
    return codes;
  });
  // Setup is not a login: a wrong code here does not count towards the lockout.
  if (!outcome) throw new AppError("TwoFactorFailed", "the code does not match the pending secret");
  return outcome;
}
