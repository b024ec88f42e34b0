import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refreshCookieOf, TestServer } from "../../testing/harness.ts";

describe("sessions: setup, login, refresh rotation, logout", () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await TestServer.start();
  });
  afterAll(async () => t.stop());

  it("setup status flips after the first account, and setup then answers 409", async () => {
    expect((await t.request("/api/auth/setup/status")).body).toEqual({
      requires_setup: true,
      has_users: false,
    });
    const res = await t.request<Record<string, unknown>>("/api/auth/setup/register", {
      body: { email: "First@Caudal.test", name: "First", role: "operador", password: "longenough" },
    });
    expect(res.status).toBe(201);
    expect(res.body.role).toBe("superadmin");
    expect(res.body.token).toBe(res.body.access_token);
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith("caudal_refresh="));
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).toMatch(/Path=\/api\/auth/);
    expect((await t.request("/api/auth/setup/status")).body).toEqual({
      requires_setup: false,
      has_users: true,
    });
    const again = await t.request<{ error: string }>("/api/auth/setup/register", {
      body: { email: "second@caudal.test", name: "Second", role: "superadmin", password: "longenough" },
    });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe("AlreadyConfigured");
  });

  it("login gives token and access_token; wrong password is 401", async () => {
    const ok = await t.login("first@caudal.test", "longenough");
    expect(ok.status).toBe(200);
    expect(ok.body.token).toBe(ok.body.access_token);
    const bad = await t.login("first@caudal.test", "wrong-password");
    expect(bad.status).toBe(401);
    const unknown = await t.login("nobody@caudal.test", "wrong-password");
    expect(unknown.status).toBe(401);
  });

  it("rotates the refresh token; reusing a rotated one after the grace period revokes the session", async () => {
    const first = await t.login("first@caudal.test", "longenough");
    const r0 = refreshCookieOf(first);
    expect(r0).toBeTruthy();
    const refreshed = await t.request<{ token: string }>("/api/auth/refresh", {
      method: "POST",
      headers: { cookie: `caudal_refresh=${r0}` },
    });
    expect(refreshed.status).toBe(200);
    const r1 = refreshCookieOf(refreshed);
    expect(r1).toBeTruthy();
    expect(r1).not.toBe(r0);
    // Past the 5 s reuse grace period (refresh-grace.test.ts covers replays within it).
    t.clock.advance(5_100);
    const reused = await t.request("/api/auth/refresh", {
      method: "POST",
      headers: { cookie: `caudal_refresh=${r0}` },
    });
    expect(reused.status).toBe(401);
    // The whole session is gone: the newest refresh token and the access token fail too.
    const next = await t.request("/api/auth/refresh", {
      method: "POST",
      headers: { cookie: `caudal_refresh=${r1}` },
    });
    expect(next.status).toBe(401);
    const logout = await t.request("/api/auth/logout", { method: "POST", token: refreshed.body.token });
    expect(logout.status).toBe(401);
  });

  it("logout revokes the access token", async () => {
    const login = await t.login("first@caudal.test", "longenough");
    const token = login.body.token;
    expect((await t.request("/api/auth/logout", { method: "POST", token })).status).toBe(200);
    expect((await t.request("/api/auth/logout", { method: "POST", token })).status).toBe(401);
  });
});

describe("setup and login input", () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await TestServer.start();
  });
  afterAll(async () => t.stop());

  it("two concurrent first-account requests: exactly one wins, the other gets 409", async () => {
    const attempt = (i: number) =>
      t.request("/api/auth/setup/register", {
        body: { email: `race${i}@caudal.test`, name: `Race ${i}`, password: "longenough" },
      });
    const statuses = (await Promise.all([attempt(1), attempt(2), attempt(3)])).map((r) => r.status).sort();
    expect(statuses).toEqual([201, 409, 409]);
  });

  it("setup/register: 400 naming each bad field, and for malformed JSON", async () => {
    const good = { email: "x@caudal.test", name: "X", password: "longenough" };
    const cases: [Record<string, unknown>, string][] = [
      [{ email: "no-at-sign" }, "email"],
      [{ email: undefined }, "email"],
      [{ name: "" }, "name"],
      [{ password: "short" }, "password"],
      [{ password: "p".repeat(257) }, "password"],
      [{ role: "emperor" }, "role"],
    ];
    for (const [over, field] of cases) {
      const res = await t.request<{ error: string; message: string }>("/api/auth/setup/register", {
        body: { ...good, ...over },
      });
      expect(res.status, JSON.stringify(over)).toBe(400);
      expect(res.body.message).toMatch(new RegExp(`^${field}: `));
    }
    const malformed = await t.request<{ error: string; message: string }>("/api/auth/setup/register", {
      rawBody: "{",
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.message).toBeTruthy();
  });

  it("login: 400 naming each bad field, and for malformed JSON", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ email: "nope", password: "x" }, "email"],
      [{ password: "x" }, "email"],
      [{ email: "a@caudal.test" }, "password"],
      [{ email: "a@caudal.test", password: "" }, "password"],
      [{ email: "a@caudal.test", password: "p".repeat(257) }, "password"],
      [{ email: "a@caudal.test", password: "x", totp_code: "12ab56" }, "totp_code"],
      [{ email: "a@caudal.test", password: "x", totp_code: "1234567" }, "totp_code"],
      [{ email: "a@caudal.test", password: "x", recovery_code: "r".repeat(65) }, "recovery_code"],
    ];
    for (const [body, field] of cases) {
      const res = await t.request<{ error: string; message: string }>("/api/auth/login", { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.message).toMatch(new RegExp(`^${field}: `));
    }
    const malformed = await t.request<{ error: string; message: string }>("/api/auth/login", {
      rawBody: "nope",
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toBeTruthy();
  });
});
