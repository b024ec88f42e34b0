import { AppError } from "../../errors.ts";
import type { ServiceContext } from "../context.ts";
import type { AuthContext } from "./auth-context.ts";
import { issueRecoveryCodes } from "./recovery-codes.ts";
import { auditTwoFactor } from "./two-factor-audit.ts";
import { twoFactorNotEnabled } from "./two-factor-disable.ts";
import { withSecondFactor } from "./two-factor-verify.ts";

/** Replaces every recovery code after a second factor (TOTP or recovery code) checks out. */
export async function regenerateRecoveryCodes(
  ctx: ServiceContext,
  auth: AuthContext,
  code: string,
): Promise<string[]> {
  const u = await ctx.store.identity.user(auth.userId);
  if (!u) throw new AppError("Unauthorized", "the account no longer exists");
  if (!u.twoFactorEnabled) throw twoFactorNotEnabled();
  return withSecondFactor(ctx, auth.userId, code, async (tx) => {
    const now = ctx.clock.now();
    const codes = await issueRecoveryCodes(tx.identity, auth.userId, now);
    await auditTwoFactor(
      tx.audit,
      auth.userId,
      now,
      { two_factor_enabled: true },
      { two_factor_enabled: true, recovery_codes_replaced: true },
    );
    return codes;
  });
}
