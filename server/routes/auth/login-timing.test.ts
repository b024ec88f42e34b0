import { performance } from "node:perf_hooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { codeAt, twoFactorUser } from "../../testing/fixtures/two-factor-fixtures.ts";
import { TestServer } from "../../testing/harness.ts";

const ROUNDS = 9;

const errorOf = (res: { body: unknown }): unknown =>
  typeof res.body === "object" && res.body !== null && "error" in res.body ? res.body.error : undefined;

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};

/**
 * A login's answer time must not tell a locked account (spec §5.6: reveals nothing), an unknown
 * email or a wrong password apart: each costs one argon2 verification. Medians over interleaved
 * rounds, compared within a factor of two, stay robust on a busy 2-core machine; the gap this
 * guards against was a factor of four to six (about 6 ms against 22–37 ms).
 */
describe("login timing is uniform", () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await TestServer.start();
  });
  afterAll(async () => t.stop());

  it("locked account, unknown email and wrong password take about as long", async () => {
    const plain = await t.userWithRole("operador");
    const locked = await twoFactorUser(t);
    const wrong = codeAt(t, locked.secret, 1) === "000000" ? "111111" : "000000";
    for (let i = 0; i < 5; i++) {
      const res = await t.login(locked.email, locked.password, { totp_code: wrong });
      expect(errorOf(res)).toBe("TwoFactorFailed");
    }

    const cases = {
      locked: async () => {
        const res = await t.login(locked.email, "not the password");
        expect(errorOf(res)).toBe("AccountLocked");
      },
      lockedRightPassword: async () => {
        const res = await t.login(locked.email, locked.password);
        expect(errorOf(res)).toBe("AccountLocked");
      },
      unknownEmail: async () => {
        const res = await t.login("nobody-here@caudal.test", "not the password");
        expect(errorOf(res)).toBe("InvalidCredentials");
      },
      wrongPassword: async () => {
        const res = await t.login(plain.email, "not the password");
        expect(errorOf(res)).toBe("InvalidCredentials");
      },
    };
    const times: Record<keyof typeof cases, number[]> = {
      locked: [],
      lockedRightPassword: [],
      unknownEmail: [],
      wrongPassword: [],
    };
    // One unmeasured round warms every path (the decoy hash is made on first use).
    for (const run of Object.values(cases)) await run();
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, run] of Object.entries(cases) as [keyof typeof cases, () => Promise<void>][]) {
        const start = performance.now();
        await run();
        times[name].push(performance.now() - start);
      }
    }
    const medians = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
    const values = Object.values(medians);
    const ratio = Math.min(...values) / Math.max(...values);
    expect(ratio, `median ms: ${JSON.stringify(medians)}`).toBeGreaterThan(0.5);
  });
});
