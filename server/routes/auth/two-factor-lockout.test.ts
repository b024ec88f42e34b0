import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  alignToStepStart,
  codeAt,
  recoveryCodeCount,
  twoFactorRow,
  twoFactorUser,
} from "../../testing/fixtures/two-factor-fixtures.ts";
import { TestServer } from "../../testing/harness.ts";

const MINUTE = 60_000;

type ErrorBody = { error: string; message: string; locked_until?: string };

/**
 * Spec §5.6 (lockout). Each test moves the server clock by up to an hour, so each gets its own
 * server: access tokens (15 minutes) of other tests would expire under them.
 */
describe("two-factor lockout", () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await TestServer.start();
  });
  afterEach(async () => t.stop());

  const login = (email: string, password: string, extra: Record<string, string> = {}) =>
    t.request<ErrorBody & { token: string }>("/api/auth/login", { body: { email, password, ...extra } });

  it("§5.6 five failures within 15 minutes lock for 30 minutes, whatever the password and code", async () => {
    const u = await twoFactorUser(t);
    for (let i = 0; i < 4; i++) {
      const res = await login(u.email, u.password, { totp_code: wrongCode(codeAt(t, u.secret, 1)) });
      expect(res.body.error).toBe("TwoFactorFailed");
      t.clock.advance(2 * MINUTE);
    }
    // The fifth failure, still within 15 minutes of the first (8 minutes in), locks.
    alignToStepStart(t.clock);
    const fifth = await login(u.email, u.password, { totp_code: wrongCode(codeAt(t, u.secret, 1)) });
    expect(fifth.body.error).toBe("TwoFactorFailed");
    const lockedUntil = (await twoFactorRow(t, u.id)).totp_locked_until;
    expect(lockedUntil).not.toBeNull();
    expect(Math.abs((lockedUntil ?? 0) - (t.clock.now().getTime() + 30 * MINUTE))).toBeLessThan(5_000);

    // Correct password and correct code: locked.
    const right = await login(u.email, u.password, { totp_code: codeAt(t, u.secret, 1) });
    expect(right.status).toBe(401);
    expect(right.body.error).toBe("AccountLocked");
    // Wrong password: the same answer, revealing nothing about the password.
    const wrongPassword = await login(u.email, "not-the-password", { totp_code: codeAt(t, u.secret, 1) });
    expect(wrongPassword.status).toBe(401);
    expect(wrongPassword.body).toEqual(right.body);
    // No code and a recovery code: locked too.
    expect((await login(u.email, u.password)).body.error).toBe("AccountLocked");
    const recovery = await login(u.email, u.password, { recovery_code: u.recoveryCodes[0] ?? "" });
    expect(recovery.body.error).toBe("AccountLocked");
    expect(await recoveryCodeCount(t, u.id)).toBe(10);

    // 29 minutes later: still locked. Past 30 minutes: unlocked, and a fresh code logs in.
    t.clock.advance(29 * MINUTE);
    expect((await login(u.email, u.password, { totp_code: codeAt(t, u.secret) })).body.error).toBe(
      "AccountLocked",
    );
    t.clock.advance(MINUTE + 1_000);
    alignToStepStart(t.clock);
    const after = await login(u.email, u.password, { totp_code: codeAt(t, u.secret) });
    expect(after.status).toBe(200);
  });

  it("§5.6 failures spread over more than 15 minutes do not lock", async () => {
    const u = await twoFactorUser(t);
    for (let i = 0; i < 5; i++) {
      const res = await login(u.email, u.password, { totp_code: wrongCode(codeAt(t, u.secret, 1)) });
      expect(res.body.error).toBe("TwoFactorFailed");
      t.clock.advance(4 * MINUTE);
    }
    expect((await twoFactorRow(t, u.id)).totp_locked_until).toBeNull();
    alignToStepStart(t.clock);
    expect((await login(u.email, u.password, { totp_code: codeAt(t, u.secret) })).status).toBe(200);
  });

  it("§5.6 a successful verification resets the failure counter", async () => {
    const u = await twoFactorUser(t);
    for (let i = 0; i < 4; i++) {
      await login(u.email, u.password, { totp_code: wrongCode(codeAt(t, u.secret, 1)) });
    }
    expect((await twoFactorRow(t, u.id)).totp_failed_attempts).toBe(4);
    expect((await login(u.email, u.password, { totp_code: codeAt(t, u.secret, 1) })).status).toBe(200);
    expect((await twoFactorRow(t, u.id)).totp_failed_attempts).toBe(0);
    // Four more failures: without the reset this would be the 8th and the account would lock.
    for (let i = 0; i < 4; i++) {
      const res = await login(u.email, u.password, { totp_code: wrongCode(codeAt(t, u.secret, 1)) });
      expect(res.body.error).toBe("TwoFactorFailed");
    }
    expect((await twoFactorRow(t, u.id)).totp_locked_until).toBeNull();
  });
});

function wrongCode(right: string): string {
  return right === "000000" ? "111111" : "000000";
}
