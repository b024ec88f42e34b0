import { totpCode } from "../../services/auth/totp.ts";
import type { TestClock, TestServer } from "../../testing/harness.ts";

export const STEP_MS = 30_000;

/**
 * Moves the server clock to one second into a fresh 30-second TOTP step, so a test that runs
 * for less than ~29 s never crosses a step boundary by accident.
 */
export function alignToStepStart(clock: TestClock): void {
  const into = clock.now().getTime() % STEP_MS;
  clock.advance(STEP_MS - into + 1_000);
}

/** The TOTP code for the step `offset` steps away from the server's current one. */
export function codeAt(t: TestServer, secret: string, offset = 0): string {
  return totpCode(secret, new Date(t.clock.now().getTime() + offset * STEP_MS));
}

export type TwoFactorUser = {
  id: string;
  email: string;
  password: string;
  token: string;
  secret: string;
  recoveryCodes: string[];
};

/**
 * A fresh operador with two-factor enabled through the API. The current step is used up by
 * /2fa/enable, so the next login needs the code of a later step (or a recovery code).
 */
export async function twoFactorUser(t: TestServer): Promise<TwoFactorUser> {
  alignToStepStart(t.clock);
  const user = await t.userWithRole("operador");
  const setup = await t.request<{ secret: string }>("/api/auth/2fa/setup", {
    method: "POST",
    token: user.token,
  });
  if (setup.status !== 200) throw new Error(`2fa setup failed: ${setup.status} ${setup.text}`);
  const enabled = await t.request<{ recovery_codes: string[] }>("/api/auth/2fa/enable", {
    token: user.token,
    body: { code: codeAt(t, setup.body.secret) },
  });
  if (enabled.status !== 200) throw new Error(`2fa enable failed: ${enabled.status} ${enabled.text}`);
  return { ...user, secret: setup.body.secret, recoveryCodes: enabled.body.recovery_codes };
}

/** The persisted two-factor state of a user, read straight from the database. */
export function twoFactorRow(t: TestServer, userId: string) {
  const row = t.server.context.sqlite
    .prepare(
      `SELECT two_factor_enabled, last_totp_step_used, totp_failed_attempts, totp_locked_until,
              two_factor_secret_encrypted, two_factor_pending_secret_encrypted
         FROM users WHERE id = ?`,
    )
    .get(userId) as
    | {
        two_factor_enabled: number;
        last_totp_step_used: number | null;
        totp_failed_attempts: number;
        totp_locked_until: number | null;
        two_factor_secret_encrypted: Buffer | null;
        two_factor_pending_secret_encrypted: Buffer | null;
      }
    | undefined;
  if (!row) throw new Error(`no user ${userId}`);
  return row;
}

export function recoveryCodeCount(t: TestServer, userId: string): number {
  const row = t.server.context.sqlite
    .prepare("SELECT count(*) AS n FROM recovery_codes WHERE user_id = ?")
    .get(userId) as { n: number };
  return row.n;
}
