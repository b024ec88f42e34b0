import { eq } from "drizzle-orm";
import { AppError } from "../../errors.ts";
import { users } from "../../store/sqlite/schema/index.ts";
import type { ServiceContext } from "../context.ts";
import type { AuthContext } from "./auth-context.ts";
import { seal } from "./secret-box.ts";
import { newTotpSecret, totpUri } from "./totp.ts";

export const twoFactorAlreadyEnabled = () =>
  new AppError("Conflict", "two-factor authentication is already enabled; disable it first");

/**
 * Issues a new TOTP secret, kept sealed as the pending secret until POST /2fa/enable proves the
 * authenticator holds it. A second call replaces the pending secret. Spec §5.8: only the
 * AES-256-GCM ciphertext is stored, bound to the user id.
 */
export function beginTwoFactorSetup(
  ctx: ServiceContext,
  auth: AuthContext,
): { secret: string; otpauth_url: string } {
  const secret = newTotpSecret();
  const sealed = seal(ctx.keys.totp, secret, auth.userId);
  const now = ctx.clock.now();
  ctx.db.transaction((tx) => {
    const u = tx
      .select({ enabled: users.twoFactorEnabled })
      .from(users)
      .where(eq(users.id, auth.userId))
      .get();
    if (!u) throw new AppError("Unauthorized", "the account no longer exists");
    if (u.enabled) throw twoFactorAlreadyEnabled();
    tx.update(users)
      .set({ twoFactorPendingSecretEncrypted: sealed, updatedAt: now })
      .where(eq(users.id, auth.userId))
      .run();
  });
  return { secret, otpauth_url: totpUri(secret, auth.email) };
}
