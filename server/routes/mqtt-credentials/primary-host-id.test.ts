import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditOf, expectError } from "../../testing/fixtures/field-fixtures.ts";
import { TestServer } from "../../testing/harness.ts";
import { tableProbe } from "../../testing/table-probe.ts";

type Credential = { id: string; name: string; primary_host_id: string | null };

/**
 * The Sparkplug host id an HMI login may publish STATE for (issue 28), and the rule that one host
 * id belongs to one project, whether a project names it as its primary host or gives it to a login.
 */
describe("HMI credentials' primary_host_id, and one Sparkplug host id per project", () => {
  let t: TestServer;
  let admin: string;
  let p: string;
  let q: string;
  beforeAll(async () => {
    t = await TestServer.start({ NODE_ENV: "production" });
    admin = (await t.admin()).token;
    p = await t.project();
    q = await t.project();
  });
  afterAll(async () => t.stop());

  const base = (id: string) => `/api/edge/projects/${id}/mqtt-credentials`;
  const issue = (project: string, body: Record<string, unknown>) =>
    t.request<Credential>(base(project), { token: admin, body: { name: "Ignition", ...body } });
  const patch = (project: string, id: string, body: Record<string, unknown>) =>
    t.request<Credential>(`${base(project)}/${id}`, { method: "PATCH", token: admin, body });
  const putProject = async (project: string, host: string | null) => {
    const name = (await t.request<{ name: string }>(`/api/edge/projects/${project}`, { token: admin })).body
      .name;
    return t.request(`/api/edge/projects/${project}`, {
      method: "PUT",
      token: admin,
      body: { name, auto_deploy: false, sparkplug_primary_host_id: host },
    });
  };
  const logins = async (project: string) =>
    (await t.request<Credential[]>(base(project), { token: admin })).body.length;

  it("a login is given a host id on issue; a second login of the same project may share it", async () => {
    const first = await issue(p, { primary_host_id: "scada-a" });
    expect(first.status).toBe(201);
    expect(first.body.primary_host_id).toBe("scada-a");
    expect((await issue(p, { primary_host_id: "scada-a" })).status).toBe(201);
    expect((await issue(p, {})).body.primary_host_id).toBeNull();
    const [created] = await auditOf(t, first.body.id);
    expect(JSON.parse(created?.after ?? "{}")).toMatchObject({ primary_host_id: "scada-a" });
  });

  it("409 for a host id another project gives a login or names as primary host, and nothing is written", async () => {
    const before = await logins(q);
    expectError(await issue(q, { primary_host_id: "scada-a" }), 409, "Conflict", "primary_host_id");
    expect(await logins(q)).toBe(before);
    expectError(await putProject(q, "scada-a"), 409, "Conflict", "sparkplug_primary_host_id");
    const created = await t.request("/api/edge/projects", {
      token: admin,
      body: { name: "Third field", sparkplug_primary_host_id: "scada-a" },
    });
    expectError(created, 409, "Conflict", "sparkplug_primary_host_id");
    expect(await tableProbe(t.server).count("projects", { name: "Third field" })).toBe(0);
    // The project that gave it to its logins may name it as its primary host.
    expect((await putProject(p, "scada-a")).status).toBe(200);
    expectError(await issue(q, { primary_host_id: "scada-a" }), 409, "Conflict", "primary_host_id");
  });

  it("PATCH renames, gives, changes and removes the host id (audited); 409 and 404 as POST", async () => {
    const login = (await issue(q, {})).body;
    const renamed = await patch(q, login.id, { name: "  Panel  " });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: "Panel", primary_host_id: null });
    expect((await patch(q, login.id, { name: "Panel", primary_host_id: "scada-q" })).body).toMatchObject({
      name: "Panel",
      primary_host_id: "scada-q",
    });
    expectError(
      await patch(q, login.id, { name: "Panel", primary_host_id: "scada-a" }),
      409,
      "Conflict",
      "primary_host_id",
    );
    expectError(
      await patch(q, login.id, { name: "Panel", primary_host_id: "a b" }),
      400,
      "ValidationFailed",
      "primary_host_id",
    );
    expectError(await patch(p, login.id, { name: "x" }), 404, "NotFound");
    expectError(await patch(q, login.id, { primary_host_id: "x" }), 400, "ValidationFailed", "name");
    expect(
      (await patch(q, login.id, { name: "Panel", primary_host_id: null })).body.primary_host_id,
    ).toBeNull();
    // Removed from q's login, scada-q is free for another project again.
    expect((await issue(p, { primary_host_id: "scada-q" })).status).toBe(201);
    const audit = await auditOf(t, login.id);
    expect(audit.map((e) => e.action)).toEqual(["create", "update", "update", "update"]);
    expect(audit.map((e) => JSON.parse(e.after ?? "{}").primary_host_id)).toEqual([
      null,
      null,
      "scada-q",
      null,
    ]);
  });

  it("projects that shared a host id before keep it: only a new one is checked", async () => {
    const r = await t.project();
    const s = await t.project();
    await tableProbe(t.server).run("UPDATE projects SET sparkplug_primary_host_id = ? WHERE id IN (?, ?)", [
      "legacy",
      r,
      s,
    ]);
    expect((await putProject(r, "legacy")).status).toBe(200);
    expectError(await putProject(q, "legacy"), 409, "Conflict", "sparkplug_primary_host_id");
  });

  it("two projects claiming one new host id at once: exactly one wins", async () => {
    const r = await t.project();
    const s = await t.project();
    const answers = await Promise.all([
      issue(r, { primary_host_id: "race" }),
      issue(s, { primary_host_id: "race" }),
      putProject(r, "race-2"),
      putProject(s, "race-2"),
    ]);
    expect(
      answers
        .slice(0, 2)
        .map((a) => a.status)
        .sort(),
    ).toEqual([201, 409]);
    expect(
      answers
        .slice(2)
        .map((a) => a.status)
        .sort(),
    ).toEqual([200, 409]);
  });
});
