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

  it("rotates the refresh token; reusing a rotated one revokes the session", async () => {
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
