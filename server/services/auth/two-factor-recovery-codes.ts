import { eq } from "drizzle-orm";
import { AppError } from "../../errors.ts";
import { users } from "../../store/sqlite/schema/index.ts";
import type { ServiceContext } from "../context.ts";
import type { AuthContext } from "./auth-context.ts";
import { issueRecoveryCodes } from "./recovery-codes.ts";
import { auditTwoFactor } from "./two-factor-audit.ts";
import { twoFactorNotEnabled } from "./two-factor-disable.ts";
import { withSecondFactor } from "./two-factor-verify.ts";

/** Replaces every recovery code after a second factor (TOTP or recovery code) checks out. */
export function regenerateRecoveryCodes(ctx: ServiceContext, auth: AuthContext, code: string): string[] {
  const u = ctx.db
    .select({ enabled: users.twoFactorEnabled })
    .from(users)
    .where(eq(users.id, auth.userId))
    .get();
  if (!u) throw new AppError("Unauthorized", "the account no longer exists");
  if (!u.enabled) throw twoFactorNotEnabled();
  return withSecondFactor(ctx, auth.userId, code, (tx) => {
    const now = ctx.clock.now();
    const codes = issueRecoveryCodes(tx, auth.userId, now);
    auditTwoFactor(
      tx,
      auth.userId,
      now,
      { two_factor_enabled: true },
      { two_factor_enabled: true, recovery_codes_replaced: true },
    );
    return codes;
  });
}
