import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sha256Hex } from "../../services/auth/tokens.ts";
import { auditOf, expectError } from "../../testing/fixtures/field-fixtures.ts";
import type { RequestOptions } from "../../testing/harness.ts";
import { TestServer } from "../../testing/harness.ts";
import { tableProbe } from "../../testing/table-probe.ts";

type Issued = {
  id: string;
  project_id: string;
  name: string;
  username: string;
  primary_host_id: string | null;
  password: string;
  created_by: string | null;
  created_at: string;
};

describe("HMI credentials: POST, GET, PATCH, DELETE /api/edge/projects/{id}/mqtt-credentials", () => {
  let t: TestServer;
  let admin: string;
  let project: string;
  let other: string;
  /** supervisor assigned to `project` only: `other` is invisible (404). */
  let supervisor: { id: string; token: string };
  /** operador: may read config but not write it, so may not manage HMI logins (403). */
  let operador: string;
  beforeAll(async () => {
    t = await TestServer.start();
    admin = (await t.admin()).token;
    project = await t.project();
    other = await t.project();
    supervisor = await t.userWithRole("supervisor", [project]);
    operador = (await t.userWithRole("operador", [project])).token;
  });
  afterAll(async () => t.stop());

  const call = <T = unknown>(method: string, path: string, token?: string, body?: unknown) => {
    const options: RequestOptions = { method };
    if (token) options.token = token;
    if (body !== undefined) options.body = body;
    return t.request<T>(path, options);
  };
  const base = (id: string) => `/api/edge/projects/${id}/mqtt-credentials`;
  const issue = (id: string, token: string, name = "Ignition, control room") =>
    call<Issued>("POST", base(id), token, { name });

  it("a supervisor issues one (201, password once, stored hashed), lists it without the password, revokes it (204)", async () => {
    const res = await issue(project, supervisor.token, "  Ignition, control room  ");
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      project_id: project,
      name: "Ignition, control room",
      username: `hmi:${res.body.id}`,
      primary_host_id: null,
      password: expect.stringMatching(/^chm_[A-Za-z0-9_-]{43}$/),
      created_by: supervisor.id,
      created_at: expect.any(String),
    });
    const [row] = await tableProbe(t.server).query<{ password_hash: string }>(
      "SELECT password_hash FROM mqtt_credentials WHERE id = ?",
      [res.body.id],
    );
    if (!row) throw new Error("no credential row");
    expect(row.password_hash).toBe(sha256Hex(res.body.password));
    expect(JSON.stringify(row)).not.toContain(res.body.password);

    const second = await issue(project, admin, "Panel 2");
    const listed = await call<Omit<Issued, "password">[]>("GET", base(project), supervisor.token);
    expect(listed.status).toBe(200);
    const { password: _shownOnce, ...withoutPassword } = res.body;
    expect(listed.body).toEqual([withoutPassword, expect.objectContaining({ id: second.body.id })]);
    expect(listed.text).not.toContain("chm_");
    expect(listed.text).not.toContain(row.password_hash);

    const revoked = await call("DELETE", `${base(project)}/${res.body.id}`, supervisor.token);
    expect(revoked.status).toBe(204);
    expect((await call<unknown[]>("GET", base(project), admin)).body).toHaveLength(1);
    expectError(await call("DELETE", `${base(project)}/${res.body.id}`, admin), 404, "NotFound");

    // Every issue and revocation is audited, never with the password or its hash.
    const audit = await auditOf(t, res.body.id);
    expect(audit.map((e) => [e.entity, e.action, e.user_id, e.project_id])).toEqual([
      ["mqtt_credential", "create", supervisor.id, project],
      ["mqtt_credential", "delete", supervisor.id, project],
    ]);
    const text = JSON.stringify(audit);
    expect(text).not.toContain(res.body.password);
    expect(text).not.toContain(row.password_hash);
    expect(JSON.parse(audit[0]?.after ?? "{}")).toMatchObject({ name: "Ignition, control room" });
  });

  it("a credential of another project is a 404 on DELETE, and stays", async () => {
    const foreign = await issue(other, admin);
    expectError(await call("DELETE", `${base(project)}/${foreign.body.id}`, admin), 404, "NotFound");
    expect((await call<unknown[]>("GET", base(other), admin)).body).toHaveLength(1);
  });

  const routes: [string, string, (id: string) => string, unknown][] = [
    ["POST", "POST", (id) => base(id), { name: "x" }],
    ["GET", "GET", (id) => base(id), undefined],
    ["PATCH", "PATCH", (id) => `${base(id)}/${randomUUID()}`, { name: "x" }],
    ["DELETE", "DELETE", (id) => `${base(id)}/${randomUUID()}`, undefined],
  ];
  for (const [label, method, path, body] of routes) {
    it(`${label}: 401 without a token or with a bad one`, async () => {
      expectError(await call(method, path(project), undefined, body), 401, "Unauthorized");
      expectError(await call(method, path(project), "not-a-jwt", body), 401, "Unauthorized");
    });

    it(`${label}: 403 for an operador, even of the project`, async () => {
      expectError(await call(method, path(project), operador, body), 403, "Forbidden");
    });

    it(`${label}: 404 for an unknown project and for one the caller is not assigned to`, async () => {
      expectError(await call(method, path(randomUUID()), admin, body), 404, "NotFound");
      expectError(await call(method, path(other), supervisor.token, body), 404, "NotFound");
    });
  }

  it("400 for ids that are not UUIDs, naming them", async () => {
    expectError(await call("POST", base("nope"), admin, { name: "x" }), 400, "ValidationFailed", "id");
    expectError(await call("GET", base("nope"), admin), 400, "ValidationFailed", "id");
    expectError(
      await call("DELETE", `${base(project)}/nope`, admin),
      400,
      "ValidationFailed",
      "credential_id",
    );
    expectError(
      await call("DELETE", `${base("nope")}/${randomUUID()}`, admin),
      400,
      "ValidationFailed",
      "id",
    );
  });

  const bodies: [string, unknown, string | undefined][] = [
    ["missing name", {}, "name"],
    ["blank name", { name: "   " }, "name"],
    ["name too long", { name: "n".repeat(201) }, "name"],
    ["name not a string", { name: 7 }, "name"],
    ["name with a control character", { name: "a\u0000b" }, "name"],
    ["primary_host_id with a slash", { name: "x", primary_host_id: "scada/1" }, "primary_host_id"],
    ["primary_host_id with a wildcard", { name: "x", primary_host_id: "+" }, "primary_host_id"],
    ["primary_host_id empty", { name: "x", primary_host_id: "" }, "primary_host_id"],
    ["primary_host_id too long", { name: "x", primary_host_id: "h".repeat(65) }, "primary_host_id"],
    ["primary_host_id not a string", { name: "x", primary_host_id: 7 }, "primary_host_id"],
    ["a JSON array", [{ name: "x" }], undefined],
  ];
  for (const [label, body, field] of bodies) {
    it(`POST: ${label} → 400${field ? ` (${field})` : ""}, and nothing is issued`, async () => {
      const before = (await call<unknown[]>("GET", base(project), admin)).body.length;
      expectError(await call("POST", base(project), admin, body), 400, "ValidationFailed", field);
      expect((await call<unknown[]>("GET", base(project), admin)).body).toHaveLength(before);
    });
  }

  it("POST: malformed JSON → 400", async () => {
    expectError(await t.request(base(project), { token: admin, rawBody: '{"name":' }), 400, "BadRequest");
  });
});
