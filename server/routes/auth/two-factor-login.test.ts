import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { totpStep } from "../../services/auth/totp.ts";
import {
  codeAt,
  recoveryCodeCount,
  STEP_MS,
  twoFactorRow,
  twoFactorUser,
} from "../../testing/fixtures/two-factor-fixtures.ts";
import { refreshCookieOf, TestServer } from "../../testing/harness.ts";
import { tableProbe } from "../../testing/table-probe.ts";

type ErrorBody = { error: string; message: string; requires_2fa?: boolean };

/** Spec §5, "Two-factor login rules (TOTP)", one rule at a time. */
describe("two-factor login rules", () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await TestServer.start();
  });
  afterAll(async () => t.stop());

  const login = (email: string, password: string, extra: Record<string, string> = {}) =>
    t.request<ErrorBody & { token: string; access_token: string }>("/api/auth/login", {
      body: { email, password, ...extra },
    });

  it("§5.1 without two-factor, email and password are enough", async () => {
    const u = await t.userWithRole("operador");
    const res = await login(u.email, u.password);
    expect(res.status).toBe(200);
    expect(res.body.token).toBeTruthy();
  });

  it("§5.2 with two-factor and no code: 401 challenge with requires_2fa, never 500", async () => {
    const u = await twoFactorUser(t);
    const res = await login(u.email, u.password);
    expect(res.status).toBe(401);
    expect(res.body.error).toBe("TwoFactorRequired");
    expect(res.body.requires_2fa).toBe(true);
    expect(res.body.message).toBeTruthy();
    // A wrong password still says nothing about two-factor.
    const wrong = await login(u.email, "not-the-password");
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe("InvalidCredentials");
    expect(wrong.body.requires_2fa).toBeUndefined();
  });

  it("§5.3 a valid code gives 200, the token and the refresh cookie", async () => {
    const u = await twoFactorUser(t);
    const res = await login(u.email, u.password, { totp_code: codeAt(t, u.secret, 1) });
    expect(res.status).toBe(200);
    expect(res.body.access_token).toBe(res.body.token);
    expect(refreshCookieOf(res)).toBeTruthy();
    const me = await t.request("/api/auth/logout", { method: "POST", token: res.body.token });
    expect(me.status).toBe(200);
  });

  it("§5.4 a wrong code gives 401 TwoFactorFailed and no cookie", async () => {
    const u = await twoFactorUser(t);
    const res = await login(u.email, u.password, { totp_code: wrongCode(codeAt(t, u.secret, 1)) });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe("TwoFactorFailed");
    expect(refreshCookieOf(res)).toBeUndefined();
    expect((await twoFactorRow(t, u.id)).totp_failed_attempts).toBe(1);
  });

  it("§5.5 a recovery code works once, its row is deleted, then RecoveryCodeInvalid", async () => {
    const u = await twoFactorUser(t);
    expect(u.recoveryCodes).toHaveLength(10);
    expect(new Set(u.recoveryCodes).size).toBe(10);
    expect(await recoveryCodeCount(t, u.id)).toBe(10);
    const code = u.recoveryCodes[0] ?? "";
    const first = await login(u.email, u.password, { recovery_code: code });
    expect(first.status).toBe(200);
    expect(first.body.token).toBeTruthy();
    expect(await recoveryCodeCount(t, u.id)).toBe(9);
    const again = await login(u.email, u.password, { recovery_code: code });
    expect(again.status).toBe(401);
    expect(again.body.error).toBe("RecoveryCodeInvalid");
    expect(await recoveryCodeCount(t, u.id)).toBe(9);
    const madeUp = await login(u.email, u.password, { recovery_code: "ZZZZZ-ZZZZZ" });
    expect(madeUp.body.error).toBe("RecoveryCodeInvalid");
    // Another user's code is not this user's.
    const other = await twoFactorUser(t);
    const foreign = await login(u.email, u.password, { recovery_code: other.recoveryCodes[0] ?? "" });
    expect(foreign.body.error).toBe("RecoveryCodeInvalid");
    expect(await recoveryCodeCount(t, other.id)).toBe(10);
  });

  it("§5.5 recovery codes are typed loosely: case, spaces and the dash do not matter", async () => {
    const u = await twoFactorUser(t);
    const code = (u.recoveryCodes[1] ?? "").replace("-", " ").toLowerCase();
    const res = await login(u.email, u.password, { recovery_code: code });
    expect(res.status).toBe(200);
  });

  it("§5.7 replay: the same step is refused and the stored step stays; earlier refused; later accepted", async () => {
    const u = await twoFactorUser(t);
    const enabledStep = (await twoFactorRow(t, u.id)).last_totp_step_used;
    // /2fa/enable consumed the current step: its code cannot log in.
    expect(enabledStep).toBe(totpStep(t.clock.now()));
    const sameAsEnable = await login(u.email, u.password, { totp_code: codeAt(t, u.secret) });
    expect(sameAsEnable.body.error).toBe("TwoFactorFailed");

    // The next step (within the ±1 skew) is accepted and stored.
    const next = codeAt(t, u.secret, 1);
    expect((await login(u.email, u.password, { totp_code: next })).status).toBe(200);
    const stored = (await twoFactorRow(t, u.id)).last_totp_step_used;
    expect(stored).toBe((enabledStep ?? 0) + 1);

    // Replaying it: TwoFactorFailed, stored step unchanged.
    const replay = await login(u.email, u.password, { totp_code: next });
    expect(replay.status).toBe(401);
    expect(replay.body.error).toBe("TwoFactorFailed");
    expect((await twoFactorRow(t, u.id)).last_totp_step_used).toBe(stored);

    // Move into the stored step: the code of the step before it is within skew but refused.
    t.clock.advance(STEP_MS);
    const previous = await login(u.email, u.password, { totp_code: codeAt(t, u.secret, -1) });
    expect(previous.body.error).toBe("TwoFactorFailed");
    const current = await login(u.email, u.password, { totp_code: codeAt(t, u.secret) });
    expect(current.body.error).toBe("TwoFactorFailed");
    expect((await twoFactorRow(t, u.id)).last_totp_step_used).toBe(stored);

    // A later step is accepted and becomes the stored step.
    const later = await login(u.email, u.password, { totp_code: codeAt(t, u.secret, 1) });
    expect(later.status).toBe(200);
    expect((await twoFactorRow(t, u.id)).last_totp_step_used).toBe((stored ?? 0) + 1);
  });

  it("§5.7 codes outside the ±1 step window are refused", async () => {
    const u = await twoFactorUser(t);
    t.clock.advance(3 * STEP_MS);
    expect((await login(u.email, u.password, { totp_code: codeAt(t, u.secret, 2) })).body.error).toBe(
      "TwoFactorFailed",
    );
    expect((await login(u.email, u.password, { totp_code: codeAt(t, u.secret, -2) })).body.error).toBe(
      "TwoFactorFailed",
    );
    expect((await login(u.email, u.password, { totp_code: codeAt(t, u.secret, -1) })).status).toBe(200);
  });

  it("§5.8 the TOTP secret is nowhere in the database's files in plain text, not even in the WAL", async () => {
    const u = await twoFactorUser(t);
    // A pending secret (set up, not yet enabled) must not leak either.
    const other = await t.userWithRole("operador");
    const pending = await t.request<{ secret: string }>("/api/auth/2fa/setup", {
      method: "POST",
      token: other.token,
    });
    expect(pending.status).toBe(200);
    const row = await twoFactorRow(t, u.id);
    expect(row.two_factor_secret_encrypted?.length).toBeGreaterThan(28);

    const { files, wal } = await databaseFiles(t);
    expect(wal.length).toBeGreaterThan(0);
    // Control: the scan does see what the database holds (the email is stored in clear).
    expect(files.some((f) => readFileSync(f).includes(Buffer.from(u.email)))).toBe(true);
    for (const secret of [u.secret, pending.body.secret]) {
      const needles = [
        Buffer.from(secret, "ascii"),
        Buffer.from(secret.toLowerCase(), "ascii"),
        Buffer.from(secret, "utf16le"),
        base32Decode(secret),
      ];
      expect(base32Decode(secret).length).toBeGreaterThanOrEqual(16);
      for (const file of files) {
        const content = readFileSync(file);
        for (const needle of needles) {
          expect(content.includes(needle), `${secret} found in ${file}`).toBe(false);
        }
      }
    }
  });
});

function wrongCode(right: string): string {
  return right === "000000" ? "111111" : "000000";
}

/**
 * The files holding the server's data, and its WAL among them: SQLite's in DATA_DIR; on PostgreSQL
 * its database's directory and the cluster's WAL, a CHECKPOINT having written every page out.
 */
async function databaseFiles(t: TestServer): Promise<{ files: string[]; wal: string[] }> {
  const probe = tableProbe(t.server);
  if (probe.backend === "sqlite") {
    const files = filesUnder(t.dataDir);
    return { files, wal: files.filter((f) => f.endsWith("-wal")) };
  }
  await probe.run("CHECKPOINT");
  const [where] = await probe.query<{ data: string; oid: number }>(
    "SELECT current_setting('data_directory') AS data, oid::bigint AS oid FROM pg_database WHERE datname = current_database()",
  );
  if (!where) throw new Error("no data directory");
  const wal = filesUnder(join(where.data, "pg_wal")).filter((f) => /\/[0-9A-F]{24}$/.test(f));
  return { files: [...filesUnder(join(where.data, "base", String(where.oid))), ...wal], wal };
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** RFC 4648 §6 base32, enough to turn a TOTP secret into the key bytes it stands for. */
function base32Decode(text: string): Buffer {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const ch of text.replace(/=+$/, "").toUpperCase()) {
    const index = alphabet.indexOf(ch);
    if (index < 0) throw new Error(`not base32: ${ch}`);
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}
