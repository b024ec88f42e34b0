import { AppError } from "../../errors.ts";
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
export async function beginTwoFactorSetup(
  ctx: ServiceContext,
  auth: AuthContext,
): Promise<{ secret: string; otpauth_url: string }> {
  const secret = newTotpSecret();
  const sealed = seal(ctx.keys.totp, secret, auth.userId);
  const now = ctx.clock.now();
  await ctx.store.transaction(async (tx) => {
    const u = await tx.identity.user(auth.userId);
    if (!u) throw new AppError("Unauthorized", "the account no longer exists");
    if (u.twoFactorEnabled) throw twoFactorAlreadyEnabled();
    await tx.identity.updateUser(auth.userId, { twoFactorPendingSecretEncrypted: sealed, updatedAt: now });
  });
  return { secret, otpauth_url: totpUri(secret, auth.email) };
}
