import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditOf, expectError } from "../../testing/fixtures/field-fixtures.ts";
import type { RequestOptions } from "../../testing/harness.ts";
import { TestServer } from "../../testing/harness.ts";

type Issued = { id: string; code: string; expires_at: string };
type Listed = {
  id: string;
  purpose: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
  revoked_at: string | null;
  status: string;
};

const DAY_MS = 86_400_000;

/** POST/GET /api/edge/projects/{id}/enrollment-codes and DELETE …/{code_id} (issue 10 §2). */
describe("enrollment code routes", () => {
  let t: TestServer;
  let admin: string;
  let project: string;
  let other: string;
  let operador: string;
  let reader: string;
  let supervisor: { id: string; token: string };
  beforeAll(async () => {
    t = await TestServer.start();
    admin = (await t.admin()).token;
    project = await t.project();
    other = await t.project();
    operador = (await t.userWithRole("operador", [project])).token;
    reader = (await t.userWithRole("anh_reader", [project])).token;
    supervisor = await t.userWithRole("supervisor", [project]);
  });
  afterAll(async () => t.stop());

  const call = <T = unknown>(method: string, path: string, token?: string, body?: unknown) => {
    const options: RequestOptions = { method };
    if (token) options.token = token;
    if (body !== undefined) options.body = body;
    return t.request<T>(path, options);
  };
  const codes = (id: string) => `/api/edge/projects/${id}/enrollment-codes`;
  const issue = async (id = project, token = supervisor.token, body?: unknown) => {
    const res = await call<Issued>("POST", codes(id), token, body);
    expect(res.status).toBe(201);
    return res.body;
  };

  const routes: [string, string, (id: string) => string][] = [
    ["issue", "POST", (id) => codes(id)],
    ["list", "GET", (id) => codes(id)],
    ["revoke", "DELETE", (id) => `${codes(id)}/${randomUUID()}`],
  ];
  for (const [label, method, path] of routes) {
    it(`${label}: 401 without a token or with a bad one`, async () => {
      expectError(await call(method, path(project)), 401, "Unauthorized");
      expectError(await call(method, path(project), "not-a-jwt"), 401, "Unauthorized");
    });

    it(`${label}: 403 for operador and anh_reader`, async () => {
      expectError(await call(method, path(project), operador), 403, "Forbidden");
      expectError(await call(method, path(project), reader), 403, "Forbidden");
    });

    it(`${label}: 404 for an unknown project and for one the supervisor is not assigned to`, async () => {
      expectError(await call(method, path(randomUUID()), admin), 404, "NotFound");
      expectError(await call(method, path(other), supervisor.token), 404, "NotFound");
    });
  }

  it("revoke: 404 for an unknown code and for a code of another project", async () => {
    const res = await call("DELETE", `${codes(project)}/${randomUUID()}`, admin);
    expectError(res, 404, "NotFound");
    expect((res.body as { message: string }).message).toBe("enrollment code not found");
    const elsewhere = await issue(other, admin);
    expectError(await call("DELETE", `${codes(project)}/${elsewhere.id}`, admin), 404, "NotFound");
    expect((await call<Listed[]>("GET", codes(other), admin)).body[0]?.status).toBe("active");
  });

  it("400 for ids that are not UUIDs, naming them", async () => {
    expectError(await call("POST", codes("nope"), admin), 400, "ValidationFailed", "id");
    expectError(await call("GET", codes("nope"), admin), 400, "ValidationFailed", "id");
    expectError(
      await call("DELETE", `${codes("nope")}/${randomUUID()}`, admin),
      400,
      "ValidationFailed",
      "id",
    );
    expectError(await call("DELETE", `${codes(project)}/nope`, admin), 400, "ValidationFailed", "code_id");
  });

  const badTtl: [string, unknown][] = [
    ["below a minute", 59],
    ["above 30 days", 30 * 86_400 + 1],
    ["not an integer", 90.5],
    ["not a number", "3600"],
    ["null", null],
  ];
  it("issue: an unknown field → 400 naming it", async () => {
    const res = await call("POST", codes(project), admin, { ttl: 60 });
    expectError(res, 400, "ValidationFailed");
    expect((res.body as { message: string }).message).toContain("ttl");
  });

  for (const [label, ttl] of badTtl) {
    it(`issue: ttl_seconds ${label} → 400 (ttl_seconds), and no code is issued`, async () => {
      const before = (await call<Listed[]>("GET", codes(project), admin)).body.length;
      expectError(
        await call("POST", codes(project), admin, { ttl_seconds: ttl }),
        400,
        "ValidationFailed",
        "ttl_seconds",
      );
      expect((await call<Listed[]>("GET", codes(project), admin)).body.length).toBe(before);
    });
  }

  it("issue: malformed JSON → 400; a body that is not JSON → 415", async () => {
    expect((await t.request(codes(project), { token: admin, rawBody: "{" })).status).toBe(400);
    const text = await t.request(codes(project), {
      token: admin,
      rawBody: "ttl_seconds=60",
      headers: { "content-type": "text/plain" },
    });
    expectError(text, 415, "UnsupportedMediaType");
  });

  it("a supervisor issues a code valid 7 days by default, shown once; the list hides it; issuing is audited", async () => {
    const fresh = await t.project();
    const sup = await t.userWithRole("supervisor", [fresh]);
    const issued = await issue(fresh, sup.token);
    expect(issued.code).toMatch(/^cen_[\w-]{43}$/);
    const ttl = Date.parse(issued.expires_at) - t.clock.now().getTime();
    expect(ttl).toBeGreaterThan(7 * DAY_MS - 60_000);
    expect(ttl).toBeLessThanOrEqual(7 * DAY_MS);
    t.clock.advance(1);
    const short = await issue(fresh, sup.token, { ttl_seconds: 3600 });
    expect(Date.parse(short.expires_at) - t.clock.now().getTime()).toBeLessThanOrEqual(3_600_000);

    const list = await call<Listed[]>("GET", codes(fresh), sup.token);
    expect(list.status).toBe(200);
    expect(list.body.map((c) => c.id)).toEqual([short.id, issued.id]);
    expect(list.body[1]).toEqual({
      id: issued.id,
      purpose: "manual",
      created_at: expect.any(String),
      expires_at: issued.expires_at,
      used_at: null,
      revoked_at: null,
      status: "active",
    });
    expect(list.text).not.toContain(issued.code);
    expect(list.text).not.toContain(short.code);

    const audit = await auditOf(t, issued.id);
    expect(audit).toEqual([
      expect.objectContaining({
        entity: "enrollment_code",
        action: "create",
        user_id: sup.id,
        project_id: fresh,
      }),
    ]);
    expect(JSON.stringify(audit)).not.toContain(issued.code);
  });

  it("revoke: 200 with the revoked code, audited once; revoking again changes nothing", async () => {
    const issued = await issue();
    const first = await call<Listed>("DELETE", `${codes(project)}/${issued.id}`, supervisor.token);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ id: issued.id, status: "revoked", revoked_at: expect.any(String) });
    t.clock.advance(1000);
    const again = await call<Listed>("DELETE", `${codes(project)}/${issued.id}`, admin);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect((await auditOf(t, issued.id)).map((a) => [a.action, a.user_id])).toEqual([
      ["create", supervisor.id],
      ["update", supervisor.id],
    ]);
    const listed = (await call<Listed[]>("GET", codes(project), admin)).body.find((c) => c.id === issued.id);
    expect(listed?.status).toBe("revoked");
  });

  it("the list tells used, expired and revoked codes apart", async () => {
    const fresh = await t.project();
    const used = await issue(fresh, admin);
    const expiring = await issue(fresh, admin, { ttl_seconds: 60 });
    const revoked = await issue(fresh, admin);
    const active = await issue(fresh, admin);
    expect((await t.request("/api/edge/agents/enroll", { body: { code: used.code } })).status).toBe(200);
    await call("DELETE", `${codes(fresh)}/${revoked.id}`, admin);
    t.clock.advance(61_000);
    const list = (await call<Listed[]>("GET", codes(fresh), admin)).body;
    const status = Object.fromEntries(list.map((c) => [c.id, c.status]));
    expect(status).toEqual({
      [used.id]: "used",
      [expiring.id]: "expired",
      [revoked.id]: "revoked",
      [active.id]: "active",
    });
    expect(list.find((c) => c.id === used.id)?.used_at).toEqual(expect.any(String));
  });
});
