import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditOf } from "../../testing/fixtures/audit-fixtures.ts";
import { refreshCookieOf, TestServer } from "../../testing/harness.ts";

type Body = { error: string; message: string };
type User = {
  id: string;
  email: string;
  name: string;
  role: string;
  is_active: boolean;
  two_factor_enabled: boolean;
  projects: string[];
  created_at: string;
};

const someId = "00000000-0000-4000-8000-000000000000";

/** Every /api/admin operation, with a valid body, for the 401/403 sweeps. */
const operations = (id: string) =>
  [
    ["GET", "/api/admin/users", undefined],
    [
      "POST",
      "/api/admin/users",
      { email: "x@caudal.test", name: "X", role: "operador", password: "12345678" },
    ],
    ["GET", `/api/admin/users/${id}`, undefined],
    [
      "PUT",
      `/api/admin/users/${id}`,
      { email: "x@caudal.test", name: "X", role: "operador", password: "12345678" },
    ],
    ["POST", `/api/admin/users/${id}/reset-password`, { new_password: "12345678" }],
    ["PUT", `/api/admin/users/${id}/projects`, { project_ids: [] }],
    ["GET", "/api/admin/roles", undefined],
  ] as const;

describe("admin users API", () => {
  let t: TestServer;
  let admin: string;
  let adminId: string;
  beforeAll(async () => {
    t = await TestServer.start();
    ({ token: admin, id: adminId } = await t.userWithRole("admin"));
  });
  afterAll(async () => t.stop());

  const newUser = (over: Record<string, unknown> = {}) => ({
    email: `u-${randomUUID().slice(0, 8)}@caudal.test`,
    name: "Ana Operadora",
    role: "operador",
    password: "password-123",
    ...over,
  });
  const create = (body: unknown, token = admin) =>
    t.request<User & Body>("/api/admin/users", { token, body });
  const put = (id: string, body: unknown, token = admin) =>
    t.request<User & Body>(`/api/admin/users/${id}`, { method: "PUT", token, body });

  it("401 without a token or with a bad one, on every operation", async () => {
    for (const [method, path, body] of operations(someId)) {
      const none = await t.request<Body>(path, { method, body });
      expect(none.status, `${method} ${path}`).toBe(401);
      expect(none.body.error).toBe("Unauthorized");
      const bad = await t.request<Body>(path, { method, body, token: "x.y.z" });
      expect(bad.status, `${method} ${path}`).toBe(401);
    }
  });

  it("403 for supervisor, operador and anh_reader on every operation, before the body is read", async () => {
    const target = await create(newUser());
    for (const role of ["supervisor", "operador", "anh_reader"] as const) {
      const { token } = await t.userWithRole(role);
      for (const [method, path, body] of operations(target.body.id)) {
        const res = await t.request<Body>(path, { method, body, token });
        expect(res.status, `${role} ${method} ${path}`).toBe(403);
        expect(res.body.error).toBe("Forbidden");
        expect(res.body.message).toContain("users:manage");
      }
      const garbage = await t.request<Body>("/api/admin/users", { token, rawBody: "{not json" });
      expect(garbage.status).toBe(403);
    }
    // Nothing changed underneath.
    const after = await t.request<User>(`/api/admin/users/${target.body.id}`, { token: admin });
    expect(after.body).toEqual(target.body);
  });

  it("GET /admin/roles lists the five roles", async () => {
    const res = await t.request("/api/admin/roles", { token: admin });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(["superadmin", "admin", "supervisor", "operador", "anh_reader"]);
  });

  it("POST creates a user (201), who can then log in; the email is stored lower-cased", async () => {
    const input = newUser({ email: `Mixed-${randomUUID().slice(0, 8)}@Caudal.TEST`, role: "supervisor" });
    const res = await create(input);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      email: input.email.toLowerCase(),
      name: "Ana Operadora",
      role: "supervisor",
      is_active: true,
      two_factor_enabled: false,
      projects: [],
      created_at: expect.any(String),
    });
    expect(new Date(res.body.created_at).toISOString()).toBe(res.body.created_at);
    expect(JSON.stringify(res.body)).not.toMatch(/password|argon/i);
    const login = await t.login(input.email, input.password);
    expect(login.status).toBe(200);
    expect(login.body.role).toBe("supervisor");
  });

  it("POST: 409 for an email already taken, whatever its case", async () => {
    const input = newUser();
    expect((await create(input)).status).toBe(201);
    const dup = await create({ ...input, email: input.email.toUpperCase(), name: "Other" });
    expect(dup.status).toBe(409);
    expect(dup.body.error).toBe("Conflict");
    expect(dup.body.message).toContain(input.email);
  });

  it("POST: concurrent creates of one email give one 201 and 409s, never a 500", async () => {
    const input = newUser();
    const answers = await Promise.all(
      Array.from({ length: 16 }, (_, i) => create({ ...input, name: `Racer ${i}` })),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([201, ...new Array(15).fill(409)]);
  });

  it("POST: 400 naming each bad field, and for malformed JSON", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ email: undefined }, "email"],
      [{ email: "not-an-email" }, "email"],
      [{ email: 42 }, "email"],
      [{ name: undefined }, "name"],
      [{ name: "   " }, "name"],
      [{ name: "n".repeat(201) }, "name"],
      [{ role: undefined }, "role"],
      [{ role: "root" }, "role"],
      [{ password: undefined }, "password"],
      [{ password: "1234567" }, "password"],
      [{ password: "p".repeat(257) }, "password"],
    ];
    for (const [over, field] of cases) {
      const res = await create(newUser(over));
      expect(res.status, JSON.stringify(over)).toBe(400);
      expect(res.body.error).toBe("ValidationFailed");
      expect(res.body.message).toMatch(new RegExp(`^${field}: `));
    }
    for (const rawBody of ["{", "", "[1,2", "null"]) {
      const res = await t.request<Body>("/api/admin/users", { token: admin, rawBody });
      expect(res.status, rawBody).toBe(400);
      expect(typeof res.body.error).toBe("string");
      expect(res.body.message).toBeTruthy();
    }
    // The bounds themselves are accepted.
    expect((await create(newUser({ password: "12345678" }))).status).toBe(201);
    expect((await create(newUser({ password: "p".repeat(256) }))).status).toBe(201);
  });

  it("GET /admin/users lists users; GET /admin/users/{id} gives one, 404 unknown, 400 not a UUID", async () => {
    const created = await create(newUser());
    const list = await t.request<User[]>("/api/admin/users", { token: admin });
    expect(list.status).toBe(200);
    expect(list.body.find((u) => u.id === created.body.id)).toEqual(created.body);
    const emails = list.body.map((u) => u.email);
    expect(emails).toEqual([...emails].sort());

    const one = await t.request<User>(`/api/admin/users/${created.body.id}`, { token: admin });
    expect(one.status).toBe(200);
    expect(one.body).toEqual(created.body);
    const missing = await t.request<Body>(`/api/admin/users/${randomUUID()}`, { token: admin });
    expect(missing.status).toBe(404);
    expect(missing.body.error).toBe("NotFound");
    const notUuid = await t.request<Body>("/api/admin/users/12", { token: admin });
    expect(notUuid.status).toBe(400);
    expect(notUuid.body.message).toMatch(/^id: /);
  });

  it("PUT replaces email, name, role and password", async () => {
    const created = await create(newUser());
    const next = newUser({ name: "Renamed", role: "anh_reader", password: "a-new-password" });
    const res = await put(created.body.id, next);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...created.body, email: next.email, name: "Renamed", role: "anh_reader" });
    expect((await t.login(created.body.email, "password-123")).status).toBe(401);
    const login = await t.login(next.email as string, "a-new-password");
    expect(login.status).toBe(200);
    expect(login.body.role).toBe("anh_reader");
  });

  it("PUT: a changed password ends the user's sessions; an unchanged one keeps them", async () => {
    const u = await t.userWithRole("operador");
    const changed = await put(u.id, {
      email: u.email,
      name: "New Password",
      role: "operador",
      password: "changed-pass",
    });
    expect(changed.status).toBe(200);
    expect((await t.request("/api/auth/logout", { method: "POST", token: u.token })).status).toBe(401);

    const v = await t.userWithRole("operador");
    const same = await put(v.id, { email: v.email, name: "Kept", role: "supervisor", password: v.password });
    expect(same.status).toBe(200);
    expect((await t.request("/api/auth/logout", { method: "POST", token: v.token })).status).toBe(200);
  });

  it("PUT: is_active false ends every session and blocks login; true restores it", async () => {
    const u = await t.userWithRole("operador");
    const login = await t.login(u.email, u.password);
    const refresh = refreshCookieOf(login);
    const body = { email: u.email, name: "Off", role: "operador", password: u.password };
    const off = await put(u.id, { ...body, is_active: false });
    expect(off.status).toBe(200);
    expect(off.body.is_active).toBe(false);
    expect((await t.request("/api/auth/logout", { method: "POST", token: u.token })).status).toBe(401);
    const refreshed = await t.request("/api/auth/refresh", {
      method: "POST",
      headers: { cookie: `caudal_refresh=${refresh}` },
    });
    expect(refreshed.status).toBe(401);
    expect((await t.login(u.email, u.password)).status).toBe(401);

    const on = await put(u.id, { ...body, is_active: true });
    expect(on.body.is_active).toBe(true);
    expect((await t.login(u.email, u.password)).status).toBe(200);
    // Omitted: unchanged.
    const omitted = await put(u.id, body);
    expect(omitted.body.is_active).toBe(true);
  });

  it("PUT: 404 unknown id, 409 email clash, 409 deactivating yourself", async () => {
    const missing = await put(randomUUID(), newUser());
    expect(missing.status).toBe(404);
    const a = await create(newUser());
    const b = await create(newUser());
    const clash = await put(b.body.id, newUser({ email: a.body.email.toUpperCase() }));
    expect(clash.status).toBe(409);
    expect(clash.body.error).toBe("Conflict");
    const me = await t.userWithRole("admin");
    const self = await put(
      me.id,
      {
        email: me.email,
        name: "Me",
        role: "admin",
        password: me.password,
        is_active: false,
      },
      me.token,
    );
    expect(self.status).toBe(409);
    expect(self.body.message).toContain("your own account");
  });

  it("PUT: concurrent changes of several users to one email give one 200 and 409s, never a 500", async () => {
    const ids = await Promise.all(Array.from({ length: 8 }, async () => (await create(newUser())).body.id));
    const email = newUser().email;
    const answers = await Promise.all(ids.map((id) => put(id, newUser({ email }))));
    expect(answers.map((a) => a.status).sort()).toEqual([200, ...new Array(7).fill(409)]);
  });

  it("PUT: 400 naming each bad field", async () => {
    const target = await create(newUser());
    const cases: [Record<string, unknown>, string][] = [
      [{ email: "nope" }, "email"],
      [{ name: "" }, "name"],
      [{ role: "owner" }, "role"],
      [{ password: "short" }, "password"],
      [{ password: undefined }, "password"],
      [{ is_active: "no" }, "is_active"],
    ];
    for (const [over, field] of cases) {
      const res = await put(target.body.id, newUser(over));
      expect(res.status, JSON.stringify(over)).toBe(400);
      expect(res.body.message).toMatch(new RegExp(`^${field}: `));
    }
    const malformed = await t.request<Body>(`/api/admin/users/${target.body.id}`, {
      method: "PUT",
      token: admin,
      rawBody: "{'email':",
    });
    expect(malformed.status).toBe(400);
    const notUuid = await put("abc", newUser());
    expect(notUuid.status).toBe(400);
    expect(notUuid.body.message).toMatch(/^id: /);
    // Nothing was written.
    const after = await t.request<User>(`/api/admin/users/${target.body.id}`, { token: admin });
    expect(after.body).toEqual(target.body);
  });

  it("every change is in the audit log, in the same transaction, without password hashes", async () => {
    const created = await create(newUser());
    await put(created.body.id, newUser({ name: "Audited", password: "another-password" }));
    const entries = await auditOf(t, created.body.id, "user");
    expect(entries.map((e) => e.action)).toEqual(["create", "update"]);
    expect(entries.every((e) => e.user_id === adminId)).toBe(true);
    const update = entries[1];
    expect(JSON.parse(update?.before ?? "{}").name).toBe("Ana Operadora");
    expect(JSON.parse(update?.after ?? "{}")).toMatchObject({ name: "Audited", password_changed: true });
    for (const e of entries)
      expect(`${e.before}${e.after}`).not.toMatch(/argon2|password_hash|another-password/);
  });
});
