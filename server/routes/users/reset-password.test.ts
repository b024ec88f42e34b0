import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonText } from "../../testing/fixtures/audit-fixtures.ts";
import { refreshCookieOf, TestServer } from "../../testing/harness.ts";

type Body = { error: string; message: string };

describe("POST /api/admin/users/{id}/reset-password", () => {
  let t: TestServer;
  let admin: string;
  beforeAll(async () => {
    t = await TestServer.start();
    admin = (await t.userWithRole("admin")).token;
  });
  afterAll(async () => t.stop());

  const reset = (id: string, body: unknown, token: string | null = admin) =>
    t.request<Body>(`/api/admin/users/${id}/reset-password`, { ...(token ? { token } : {}), body });

  it("sets the new password and ends every session of the user", async () => {
    const u = await t.userWithRole("supervisor");
    const second = await t.login(u.email, u.password);
    const res = await reset(u.id, { new_password: "brand-new-pass" });
    expect(res.status).toBe(200);
    expect(res.body.message).toBeTruthy();
    for (const token of [u.token, second.body.token]) {
      expect((await t.request("/api/auth/logout", { method: "POST", token })).status).toBe(401);
    }
    const refreshed = await t.request("/api/auth/refresh", {
      method: "POST",
      headers: { cookie: `caudal_refresh=${refreshCookieOf(second)}` },
    });
    expect(refreshed.status).toBe(401);
    expect((await t.login(u.email, u.password)).status).toBe(401);
    expect((await t.login(u.email, "brand-new-pass")).status).toBe(200);
  });

  it("is audited without the hash or the password", async () => {
    const u = await t.userWithRole("operador");
    await reset(u.id, { new_password: "audited-password" });
    const [entry] = await t.server.store.audit.list({ entityId: u.id, limit: 1 });
    if (!entry) throw new Error("no audit entry");
    expect(entry.after).toMatchObject({ id: u.id, password_changed: true });
    expect(`${jsonText(entry.before)}${jsonText(entry.after)}`).not.toMatch(
      /argon2|audited-password|password_hash/,
    );
  });

  it("401 without a token, 403 for other roles, 404 for an unknown user", async () => {
    const u = await t.userWithRole("operador");
    expect((await reset(u.id, { new_password: "12345678" }, null)).status).toBe(401);
    const supervisor = await t.userWithRole("supervisor");
    expect((await reset(u.id, { new_password: "12345678" }, supervisor.token)).status).toBe(403);
    const missing = await reset(randomUUID(), { new_password: "12345678" });
    expect(missing.status).toBe(404);
    expect(missing.body.error).toBe("NotFound");
    // The user's session survived all of that.
    expect((await t.request("/api/auth/logout", { method: "POST", token: u.token })).status).toBe(200);
  });

  it("400 for a bad new_password, a bad id or malformed JSON; nothing changes", async () => {
    const u = await t.userWithRole("operador");
    for (const body of [
      {},
      { new_password: "1234567" },
      { new_password: "p".repeat(257) },
      { new_password: 12345678 },
    ]) {
      const res = await reset(u.id, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBe("ValidationFailed");
      expect(res.body.message).toMatch(/^new_password: /);
    }
    const badId = await reset("not-a-uuid", { new_password: "12345678" });
    expect(badId.status).toBe(400);
    expect(badId.body.message).toMatch(/^id: /);
    const malformed = await t.request<Body>(`/api/admin/users/${u.id}/reset-password`, {
      token: admin,
      rawBody: '{"new_password":',
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.message).toBeTruthy();
    expect((await t.login(u.email, u.password)).status).toBe(200);
    // 8 and 256 characters are the bounds (spec §8).
    expect((await reset(u.id, { new_password: "8chars!!" })).status).toBe(200);
    expect((await reset(u.id, { new_password: "x".repeat(256) })).status).toBe(200);
  });
});
