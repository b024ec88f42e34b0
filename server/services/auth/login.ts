import { AppError } from "../../errors.ts";
import type { IdentityStore } from "../../store/ports/identity-store.ts";
import type { UserRow } from "../../store/rows.ts";
import type { StorePorts } from "../../store/store.ts";
import type { ServiceContext } from "../context.ts";
import { visibleProjectSummaries } from "../users/user-dto.ts";
import { decoyHash, verifyPassword } from "./passwords.ts";
import { hashRecoveryCode } from "./recovery-codes.ts";
import { open } from "./secret-box.ts";
import { type IssuedTokens, startSession } from "./sessions.ts";
import { verifyTotp } from "./totp.ts";

export type LoginInput = {
  email: string;
  password: string;
  totp_code?: string | undefined;
  recovery_code?: string | undefined;
};

/** Spec §5 (two-factor login rules): 5 TOTP failures within 15 minutes lock for 30 minutes. */
export const LOCKOUT_FAILURES = 5;
export const LOCKOUT_WINDOW_MS = 15 * 60_000;
export const LOCKOUT_DURATION_MS = 30 * 60_000;

export type LoginResult = IssuedTokens & {
  user: UserRow;
  projects: { id: string; name: string }[];
};

const badCredentials = () => new AppError("InvalidCredentials", "email or password is incorrect");

export async function login(
  ctx: ServiceContext,
  input: LoginInput,
  client: { ip?: string | undefined; userAgent?: string | undefined },
): Promise<LoginResult> {
  const email = input.email.trim().toLowerCase();
  const user = await ctx.store.identity.userByEmail(email);
  // Exactly one argon2 verification on every path (unknown email: a decoy hash; locked: the real
  // one, its result unused), so the answer time tells none of them apart.
  const passwordOk = await verifyPassword(user?.passwordHash ?? (await decoyHash()), input.password);
  if (!user) throw badCredentials();
  // §5.6: while locked, every attempt gets AccountLocked, whatever the password.
  if (user.twoFactorEnabled && user.totpLockedUntil && user.totpLockedUntil > ctx.clock.now()) {
    throw accountLocked(user.totpLockedUntil);
  }
  if (!passwordOk) throw badCredentials();
  if (!user.isActive) throw new AppError("Unauthorized", "this account is disabled");

  if (user.twoFactorEnabled) await secondFactor(ctx, user, input);

  const tokens = await startSession(ctx, user, client);
  return { ...tokens, user, projects: await visibleProjectSummaries(ctx.store, user) };
}

async function secondFactor(ctx: ServiceContext, user: UserRow, input: LoginInput): Promise<void> {
  if (input.recovery_code) {
    await consumeRecoveryCode(ctx.store.identity, user.id, input.recovery_code);
    return;
  }
  if (!input.totp_code) {
    throw new AppError("TwoFactorRequired", "a TOTP code or a recovery code is required", {
      extra: { requires_2fa: true },
    });
  }
  await checkTotp(ctx, user.id, input.totp_code);
}

/**
 * Verifies a TOTP code for a user with two-factor enabled, with replay protection (spec §5.7)
 * and the failure counter (§5.6). Runs in one store transaction on the freshest row; `onSuccess`
 * runs inside that same transaction (with its ports), so the change a code authorises commits
 * together with the step it consumed, or neither does.
 */
export function checkTotp(ctx: ServiceContext, userId: string, code: string): Promise<void>;
export function checkTotp<T>(
  ctx: ServiceContext,
  userId: string,
  code: string,
  onSuccess: (tx: StorePorts) => Promise<T>,
): Promise<T>;
export async function checkTotp<T>(
  ctx: ServiceContext,
  userId: string,
  code: string,
  onSuccess?: (tx: StorePorts) => Promise<T>,
): Promise<T | undefined> {
  const now = ctx.clock.now();
  const outcome = await ctx.store.transaction(async (tx) => {
    const u = await tx.identity.user(userId);
    if (!u?.twoFactorEnabled || !u.twoFactorSecretEncrypted) return { kind: "failed" } as const;
    if (u.totpLockedUntil && u.totpLockedUntil > now)
      return { kind: "locked", until: u.totpLockedUntil } as const;
    const secret = open(ctx.keys.totp, u.twoFactorSecretEncrypted, u.id);
    const step = verifyTotp(secret, code, now, u.lastTotpStepUsed);
    if (step !== null) {
      await tx.identity.updateUser(u.id, {
        lastTotpStepUsed: step,
        totpFailedAttempts: 0,
        totpFirstFailureAt: null,
        updatedAt: now,
      });
      return { kind: "ok", value: await onSuccess?.(tx) } as const;
    }
    const windowOpen =
      u.totpFirstFailureAt && now.getTime() - u.totpFirstFailureAt.getTime() < LOCKOUT_WINDOW_MS;
    const failures = windowOpen ? u.totpFailedAttempts + 1 : 1;
    const locked = failures >= LOCKOUT_FAILURES;
    await tx.identity.updateUser(u.id, {
      totpFailedAttempts: locked ? 0 : failures,
      totpFirstFailureAt: locked ? null : windowOpen ? u.totpFirstFailureAt : now,
      totpLockedUntil: locked ? new Date(now.getTime() + LOCKOUT_DURATION_MS) : u.totpLockedUntil,
      updatedAt: now,
    });
    return { kind: "failed" } as const;
  });
  if (outcome.kind === "locked") throw accountLocked(outcome.until);
  if (outcome.kind === "failed") throw new AppError("TwoFactorFailed", "the two-factor code is not valid");
  return outcome.value;
}

/** Deletes the matching recovery code (spec §3: the record is consumed); 401 RecoveryCodeInvalid if none. */
export async function consumeRecoveryCode(
  identity: IdentityStore,
  userId: string,
  code: string,
): Promise<void> {
  if (!(await identity.consumeRecoveryCode(userId, hashRecoveryCode(code)))) {
    throw new AppError("RecoveryCodeInvalid", "the recovery code is not valid or was already used");
  }
}

export function accountLocked(until: Date) {
  return new AppError(
    "AccountLocked",
    `too many failed two-factor attempts; try again after ${until.toISOString()}`,
    {
      extra: { locked_until: until.toISOString() },
    },
  );
}
