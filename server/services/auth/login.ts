import { and, eq } from "drizzle-orm";
import { AppError } from "../../errors.ts";
import type { DbOrTx } from "../../store/sqlite/append-audit.ts";
import { recoveryCodes, users } from "../../store/sqlite/schema/index.ts";
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

type UserRow = typeof users.$inferSelect;

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
  const user = ctx.db.select().from(users).where(eq(users.email, email)).get();
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

  if (user.twoFactorEnabled) secondFactor(ctx, user, input);

  const tokens = await startSession(ctx, user, client);
  return { ...tokens, user, projects: visibleProjectSummaries(ctx, user) };
}

function secondFactor(ctx: ServiceContext, user: UserRow, input: LoginInput): void {
  if (input.recovery_code) {
    consumeRecoveryCode(ctx.db, user.id, input.recovery_code);
    return;
  }
  if (!input.totp_code) {
    throw new AppError("TwoFactorRequired", "a TOTP code or a recovery code is required", {
      extra: { requires_2fa: true },
    });
  }
  checkTotp(ctx, user.id, input.totp_code);
}

/**
 * Verifies a TOTP code for a user with two-factor enabled, with replay protection (spec §5.7)
 * and the failure counter (§5.6). Runs in one synchronous transaction on the freshest row;
 * `onSuccess` runs inside that same transaction, so the change a code authorises commits
 * together with the step it consumed, or neither does.
 */
export function checkTotp(ctx: ServiceContext, userId: string, code: string): void;
export function checkTotp<T>(
  ctx: ServiceContext,
  userId: string,
  code: string,
  onSuccess: (tx: DbOrTx) => T,
): T;
export function checkTotp<T>(
  ctx: ServiceContext,
  userId: string,
  code: string,
  onSuccess?: (tx: DbOrTx) => T,
): T | undefined {
  const now = ctx.clock.now();
  const outcome = ctx.db.transaction((tx) => {
    const u = tx.select().from(users).where(eq(users.id, userId)).get();
    if (!u?.twoFactorEnabled || !u.twoFactorSecretEncrypted) return { kind: "failed" } as const;
    if (u.totpLockedUntil && u.totpLockedUntil > now)
      return { kind: "locked", until: u.totpLockedUntil } as const;
    const secret = open(ctx.keys.totp, u.twoFactorSecretEncrypted, u.id);
    const step = verifyTotp(secret, code, now, u.lastTotpStepUsed);
    if (step !== null) {
      tx.update(users)
        .set({ lastTotpStepUsed: step, totpFailedAttempts: 0, totpFirstFailureAt: null, updatedAt: now })
        .where(eq(users.id, u.id))
        .run();
      return { kind: "ok", value: onSuccess?.(tx) } as const;
    }
    const windowOpen =
      u.totpFirstFailureAt && now.getTime() - u.totpFirstFailureAt.getTime() < LOCKOUT_WINDOW_MS;
    const failures = windowOpen ? u.totpFailedAttempts + 1 : 1;
    const locked = failures >= LOCKOUT_FAILURES;
    tx.update(users)
      .set({
        totpFailedAttempts: locked ? 0 : failures,
        totpFirstFailureAt: locked ? null : windowOpen ? u.totpFirstFailureAt : now,
        totpLockedUntil: locked ? new Date(now.getTime() + LOCKOUT_DURATION_MS) : u.totpLockedUntil,
        updatedAt: now,
      })
      .where(eq(users.id, u.id))
      .run();
    return { kind: "failed" } as const;
  });
  if (outcome.kind === "locked") throw accountLocked(outcome.until);
  if (outcome.kind === "failed") throw new AppError("TwoFactorFailed", "the two-factor code is not valid");
  return outcome.value;
}

/** Deletes the matching recovery code (spec §3: the record is consumed); 401 RecoveryCodeInvalid if none. */
export function consumeRecoveryCode(db: DbOrTx, userId: string, code: string): void {
  const deleted = db
    .delete(recoveryCodes)
    .where(and(eq(recoveryCodes.userId, userId), eq(recoveryCodes.codeHash, hashRecoveryCode(code))))
    .returning({ id: recoveryCodes.id })
    .all();
  if (deleted.length === 0) {
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
