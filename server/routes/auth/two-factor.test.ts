import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditOf } from "../../testing/fixtures/audit-fixtures.ts";
import {
  alignToStepStart,
  codeAt,
  recoveryCodeCount,
  twoFactorRow,
  twoFactorUser,
} from "../../testing/fixtures/two-factor-fixtures.ts";
import { TestServer } from "../../testing/harness.ts";
import { tableProbe } from "../../testing/table-probe.ts";

type Body = { error: string; message: string };
type SetupBody = { secret: string; otpauth_url: string };
type CodesBody = { recovery_codes: string[] };

const wrongCode = (right: string) => (right === "000000" ? "111111" : "000000");

/** POST /api/auth/2fa/{setup,enable,disable,recovery-codes}. */
describe("two-factor endpoints", () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await TestServer.start();
  });
  afterAll(async () => t.stop());

  const post = <T = Body>(path: string, token: string | undefined, body?: unknown) =>
    t.request<T>(`/api/auth/2fa/${path}`, { method: "POST", ...(token ? { token } : {}), body });

  it("401 without a bearer token, on every endpoint", async () => {
    for (const [path, body] of [
      ["setup", undefined],
      ["enable", { code: "123456" }],
      ["disable", { password: "x", code: "123456" }],
      ["recovery-codes", { code: "123456" }],
    ] as const) {
      const res = await post(path, undefined, body);
      expect(res.status, path).toBe(401);
      expect(res.body.error, path).toBe("Unauthorized");
      const bad = await post(path, "not-a-jwt", body);
      expect(bad.status, path).toBe(401);
    }
  });

  it("setup issues a pending secret, sealed at rest; two-factor stays off until enabled", async () => {
    const u = await t.userWithRole("supervisor");
    const res = await post<SetupBody>("setup", u.token);
    expect(res.status).toBe(200);
    expect(res.body.secret).toMatch(/^[A-Z2-7]{16,}$/);
    const url = new URL(res.body.otpauth_url);
    expect(url.protocol).toBe("otpauth:");
    expect(url.host).toBe("totp");
    expect(url.searchParams.get("secret")).toBe(res.body.secret);
    expect(url.searchParams.get("issuer")).toBe("Caudal");
    expect(decodeURIComponent(url.pathname)).toContain(u.email);

    const row = await twoFactorRow(t, u.id);
    expect(row.two_factor_enabled).toBe(0);
    expect(row.two_factor_secret_encrypted).toBeNull();
    const pending = row.two_factor_pending_secret_encrypted;
    expect(pending).not.toBeNull();
    expect(pending?.includes(Buffer.from(res.body.secret))).toBe(false);
    // Not enabled yet: the password alone still logs in.
    expect((await t.login(u.email, u.password)).status).toBe(200);
  });

  it("a second setup replaces the pending secret", async () => {
    alignToStepStart(t.clock);
    const u = await t.userWithRole("operador");
    const first = await post<SetupBody>("setup", u.token);
    const second = await post<SetupBody>("setup", u.token);
    expect(second.body.secret).not.toBe(first.body.secret);
    const stale = await post("enable", u.token, { code: codeAt(t, first.body.secret) });
    if (codeAt(t, first.body.secret) !== codeAt(t, second.body.secret)) {
      expect(stale.status).toBe(401);
      expect(stale.body.error).toBe("TwoFactorFailed");
    }
    const ok = await post<CodesBody>("enable", u.token, { code: codeAt(t, second.body.secret) });
    expect(ok.status).toBe(200);
  });

  it("enable: 400 per bad field, 409 without setup, 401 TwoFactorFailed for a wrong code", async () => {
    alignToStepStart(t.clock);
    const u = await t.userWithRole("operador");
    for (const body of [{}, { code: "12345" }, { code: "1234567" }, { code: "abcdef" }, { code: 123456 }]) {
      const res = await post("enable", u.token, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBe("ValidationFailed");
      expect(res.body.message).toMatch(/^code: /);
    }
    const malformed = await t.request<Body>("/api/auth/2fa/enable", { token: u.token, rawBody: "{code" });
    expect(malformed.status).toBe(400);
    expect(malformed.body.message).toBeTruthy();

    const noSetup = await post("enable", u.token, { code: "123456" });
    expect(noSetup.status).toBe(409);
    expect(noSetup.body.error).toBe("Conflict");

    const setup = await post<SetupBody>("setup", u.token);
    const wrong = await post("enable", u.token, { code: wrongCode(codeAt(t, setup.body.secret)) });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe("TwoFactorFailed");
    const row = await twoFactorRow(t, u.id);
    expect(row.two_factor_enabled).toBe(0);
    expect(row.two_factor_pending_secret_encrypted).not.toBeNull();
    expect(row.totp_failed_attempts).toBe(0);
  });

  it("enable turns two-factor on, returns 10 recovery codes, and setup/enable then answer 409", async () => {
    const u = await twoFactorUser(t);
    expect(u.recoveryCodes).toHaveLength(10);
    for (const code of u.recoveryCodes) expect(code).toMatch(/^[A-Z2-9]{5}-[A-Z2-9]{5}$/);
    expect(await recoveryCodeCount(t, u.id)).toBe(10);
    const row = await twoFactorRow(t, u.id);
    expect(row.two_factor_enabled).toBe(1);
    expect(row.two_factor_pending_secret_encrypted).toBeNull();
    expect(row.two_factor_secret_encrypted).not.toBeNull();
    expect(row.last_totp_step_used).not.toBeNull();

    const { token: adminToken } = await t.admin();
    const dto = await t.request<{ two_factor_enabled: boolean }>(`/api/admin/users/${u.id}`, {
      token: adminToken,
    });
    expect(dto.body.two_factor_enabled).toBe(true);

    expect((await post("setup", u.token)).status).toBe(409);
    const again = await post("enable", u.token, { code: codeAt(t, u.secret, 1) });
    expect(again.status).toBe(409);
    // The login challenge is now on.
    expect((await t.login(u.email, u.password)).status).toBe(401);
    // Only hashes are stored, never a code itself.
    const stored = await tableProbe(t.server).rows<{ code_hash: string }>("recovery_codes", {
      user_id: u.id,
    });
    for (const { code_hash } of stored) expect(u.recoveryCodes).not.toContain(code_hash);
    expect(stored.every((r) => /^[0-9a-f]{64}$/.test(r.code_hash))).toBe(true);
  });

  it("disable: 400 per bad field, 409 when off, 401 for a wrong password or code", async () => {
    const off = await t.userWithRole("operador");
    const notOn = await post("disable", off.token, { password: off.password, code: "123456" });
    expect(notOn.status).toBe(409);

    const u = await twoFactorUser(t);
    for (const [body, field] of [
      [{ code: "123456" }, "password"],
      [{ password: "", code: "123456" }, "password"],
      [{ password: u.password }, "code"],
      [{ password: u.password, code: "" }, "code"],
      [{ password: u.password, code: "x".repeat(65) }, "code"],
    ] as const) {
      const res = await post("disable", u.token, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.message).toMatch(new RegExp(`^${field}: `));
    }
    const badPassword = await post("disable", u.token, {
      password: "wrong-password",
      code: codeAt(t, u.secret, 1),
    });
    expect(badPassword.status).toBe(401);
    expect(badPassword.body.error).toBe("InvalidCredentials");
    const badCode = await post("disable", u.token, {
      password: u.password,
      code: wrongCode(codeAt(t, u.secret, 1)),
    });
    expect(badCode.status).toBe(401);
    expect(badCode.body.error).toBe("TwoFactorFailed");
    expect((await twoFactorRow(t, u.id)).totp_failed_attempts).toBe(1);
    const badRecovery = await post("disable", u.token, { password: u.password, code: "AAAAA-AAAAA" });
    expect(badRecovery.status).toBe(401);
    expect(badRecovery.body.error).toBe("RecoveryCodeInvalid");
    expect((await twoFactorRow(t, u.id)).two_factor_enabled).toBe(1);
  });

  it("disable with a TOTP code erases the secret and the recovery codes", async () => {
    const u = await twoFactorUser(t);
    const res = await post("disable", u.token, { password: u.password, code: codeAt(t, u.secret, 1) });
    expect(res.status).toBe(200);
    const row = await twoFactorRow(t, u.id);
    expect(row.two_factor_enabled).toBe(0);
    expect(row.two_factor_secret_encrypted).toBeNull();
    expect(row.last_totp_step_used).toBeNull();
    expect(await recoveryCodeCount(t, u.id)).toBe(0);
    expect((await t.login(u.email, u.password)).status).toBe(200);
  });

  it("disable with a recovery code works too", async () => {
    const u = await twoFactorUser(t);
    const res = await post("disable", u.token, { password: u.password, code: u.recoveryCodes[3] });
    expect(res.status).toBe(200);
    expect((await twoFactorRow(t, u.id)).two_factor_enabled).toBe(0);
  });

  it("TOTP failures on disable count towards the lockout; once locked, disable and login say AccountLocked", async () => {
    const u = await twoFactorUser(t);
    for (let i = 0; i < 5; i++) {
      const res = await post("disable", u.token, {
        password: u.password,
        code: wrongCode(codeAt(t, u.secret, 1)),
      });
      expect(res.body.error).toBe("TwoFactorFailed");
    }
    const locked = await post("disable", u.token, { password: u.password, code: codeAt(t, u.secret, 1) });
    expect(locked.status).toBe(401);
    expect(locked.body.error).toBe("AccountLocked");
    const viaRecovery = await post("disable", u.token, { password: u.password, code: u.recoveryCodes[0] });
    expect(viaRecovery.body.error).toBe("AccountLocked");
    expect((await post("recovery-codes", u.token, { code: codeAt(t, u.secret, 1) })).body.error).toBe(
      "AccountLocked",
    );
    const login = await t.login(u.email, u.password, { totp_code: codeAt(t, u.secret, 1) });
    expect(login.body).toMatchObject({ error: "AccountLocked" });
    expect((await twoFactorRow(t, u.id)).two_factor_enabled).toBe(1);
    expect(await recoveryCodeCount(t, u.id)).toBe(10);
  });

  it("recovery-codes: 400, 409 when off, 401 for a wrong code", async () => {
    const off = await t.userWithRole("operador");
    expect((await post("recovery-codes", off.token, { code: "123456" })).status).toBe(409);
    const u = await twoFactorUser(t);
    for (const body of [{}, { code: "" }, { code: 5 }]) {
      const res = await post("recovery-codes", u.token, body);
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/^code: /);
    }
    const wrong = await post("recovery-codes", u.token, { code: wrongCode(codeAt(t, u.secret, 1)) });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe("TwoFactorFailed");
    expect(await recoveryCodeCount(t, u.id)).toBe(10);
  });

  it("recovery-codes replaces every earlier code", async () => {
    const u = await twoFactorUser(t);
    const res = await post<CodesBody>("recovery-codes", u.token, { code: codeAt(t, u.secret, 1) });
    expect(res.status).toBe(200);
    const fresh = res.body.recovery_codes;
    expect(fresh).toHaveLength(10);
    expect(fresh.some((c) => u.recoveryCodes.includes(c))).toBe(false);
    expect(await recoveryCodeCount(t, u.id)).toBe(10);
    const old = await t.login(u.email, u.password, { recovery_code: u.recoveryCodes[0] ?? "" });
    expect(old.status).toBe(401);
    expect((old.body as unknown as Body).error).toBe("RecoveryCodeInvalid");
    const now = await t.login(u.email, u.password, { recovery_code: fresh[0] ?? "" });
    expect(now.status).toBe(200);

    // A recovery code can authorise the replacement as well; it is consumed by it.
    const viaRecovery = await post<CodesBody>("recovery-codes", u.token, { code: fresh[1] });
    expect(viaRecovery.status).toBe(200);
    expect(await recoveryCodeCount(t, u.id)).toBe(10);
    const usedUp = await post("recovery-codes", u.token, { code: fresh[1] });
    expect(usedUp.body.error).toBe("RecoveryCodeInvalid");
  });

  it("enable and disable are audited, without the secret", async () => {
    const u = await twoFactorUser(t);
    await post("disable", u.token, { password: u.password, code: codeAt(t, u.secret, 1) });
    const entries = await auditOf(t, u.id, "user");
    const changes = entries.map((e) => JSON.parse(e.after ?? "null").two_factor_enabled);
    expect(changes.slice(-2)).toEqual([true, false]);
    for (const e of entries) {
      expect(`${e.before}${e.after}`).not.toContain(u.secret);
      expect(`${e.before}${e.after}`).not.toContain("argon2");
    }
    expect(entries.at(-1)?.user_id).toBe(u.id);
  });
});
