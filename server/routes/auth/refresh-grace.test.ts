import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiResponse, refreshCookieOf, TestServer } from "../../testing/harness.ts";
import { tableProbe } from "../../testing/table-probe.ts";

type Tokens = { token: string };

/**
 * Refresh token rotation with a reuse grace period (as Auth0's reuse interval and Okta's grace
 * period): a refresh token replayed within 5 s of its rotation (two browser tabs refreshing at
 * once) returns the same successor and issues nothing new; replayed later, it is reuse and the whole
 * session is revoked (OAuth 2.0 Security BCP §4.14.2).
 */
describe("refresh rotation grace period", () => {
  let t: TestServer;
  let email: string;
  let password: string;
  beforeAll(async () => {
    t = await TestServer.start();
    ({ email, password } = await t.admin());
  });
  afterAll(async () => t.stop());

  const refresh = (cookie: string | undefined) =>
    t.request<Tokens>("/api/auth/refresh", {
      method: "POST",
      headers: { cookie: `caudal_refresh=${cookie}` },
    });

  async function loginCookie(): Promise<string> {
    const res = await t.login(email, password);
    expect(res.status).toBe(200);
    const cookie = refreshCookieOf(res);
    if (!cookie) throw new Error("no refresh cookie");
    return cookie;
  }

  const tokenRows = () => tableProbe(t.server).count("refresh_tokens");

  const sessionAlive = async (res: ApiResponse<Tokens>) =>
    (await t.request("/api/admin/roles", { token: res.body.token })).status === 200;

  it("10 concurrent refreshes with the same cookie all get the same successor; the session lives on", async () => {
    const r0 = await loginCookie();
    const rowsBefore = await tokenRows();
    const results = await Promise.all(Array.from({ length: 10 }, () => refresh(r0)));
    for (const res of results) expect(res.status, res.text).toBe(200);
    const successors = new Set(results.map((res) => refreshCookieOf(res)));
    expect(successors.size).toBe(1);
    const [r1] = [...successors];
    expect(r1).toBeTruthy();
    expect(r1).not.toBe(r0);
    // One rotation: one new refresh token row, one access token.
    expect(await tokenRows()).toBe(rowsBefore + 1);
    expect(new Set(results.map((res) => res.body.token)).size).toBe(1);
    const first = results[0];
    if (!first) throw new Error("no result");
    expect(await sessionAlive(first)).toBe(true);
    // The successor rotates normally.
    const next = await refresh(r1);
    expect(next.status).toBe(200);
    expect(refreshCookieOf(next)).not.toBe(r1);
  });

  it("a replay within 5 s returns the same successor, with no new pair", async () => {
    const r0 = await loginCookie();
    const first = await refresh(r0);
    const r1 = refreshCookieOf(first);
    const rows = await tokenRows();
    t.clock.advance(4_900);
    const replay = await refresh(r0);
    expect(replay.status, replay.text).toBe(200);
    expect(refreshCookieOf(replay)).toBe(r1);
    expect(replay.body.token).toBe(first.body.token);
    expect(await tokenRows()).toBe(rows);
    expect(await sessionAlive(replay)).toBe(true);
    expect((await refresh(r1)).status).toBe(200);
  });

  it("a replay within 5 s after the successor rotated too gets the newest token", async () => {
    const r0 = await loginCookie();
    const r1 = refreshCookieOf(await refresh(r0));
    t.clock.advance(1_000);
    const second = await refresh(r1);
    const r2 = refreshCookieOf(second);
    t.clock.advance(1_000);
    const replay = await refresh(r0);
    expect(replay.status).toBe(200);
    expect(refreshCookieOf(replay)).toBe(r2);
    expect((await refresh(r2)).status).toBe(200);
  });

  it("a replay more than 5 s after the rotation is reuse: the whole session is revoked", async () => {
    const r0 = await loginCookie();
    const first = await refresh(r0);
    const r1 = refreshCookieOf(first);
    t.clock.advance(5_100);
    const reused = await refresh(r0);
    expect(reused.status).toBe(401);
    expect((reused.body as unknown as { error: string }).error).toBe("Unauthorized");
    expect((await refresh(r1)).status).toBe(401);
    expect(await sessionAlive(first)).toBe(false);
  });

  it("no grace for a session that ended: a replay after logout is refused", async () => {
    const r0 = await loginCookie();
    const first = await refresh(r0);
    expect((await t.request("/api/auth/logout", { method: "POST", token: first.body.token })).status).toBe(
      200,
    );
    expect((await refresh(r0)).status).toBe(401);
  });
});
