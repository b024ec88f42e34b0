import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestServer } from "../../testing/harness.ts";

type Body = { error: string; message: string; projects: string[] };

describe("PUT /api/admin/users/{id}/projects", () => {
  let t: TestServer;
  let admin: string;
  let p1: string;
  let p2: string;
  let p3: string;
  beforeAll(async () => {
    t = await TestServer.start();
    admin = (await t.userWithRole("admin")).token;
    p1 = await t.project();
    p2 = await t.project();
    p3 = await t.project();
  });
  afterAll(async () => t.stop());

  const assign = (id: string, body: unknown, token: string | null = admin) =>
    t.request<Body>(`/api/admin/users/${id}/projects`, { method: "PUT", ...(token ? { token } : {}), body });
  const projectsOf = async (id: string) =>
    (await t.request<Body>(`/api/admin/users/${id}`, { token: admin })).body.projects;

  it("replaces the assignment set; the user then sees exactly those projects", async () => {
    const u = await t.userWithRole("operador");
    const first = await assign(u.id, { project_ids: [p1, p2, p1] });
    expect(first.status).toBe(200);
    expect(first.body.projects).toEqual([p1, p2].sort());
    const second = await assign(u.id, { project_ids: [p3] });
    expect(second.body.projects).toEqual([p3]);
    expect(await projectsOf(u.id)).toEqual([p3]);
    const login = await t.login(u.email, u.password);
    const seen = (login.body as unknown as { projects: { id: string }[] }).projects.map((p) => p.id);
    expect(seen).toEqual([p3]);
    const cleared = await assign(u.id, { project_ids: [] });
    expect(cleared.body.projects).toEqual([]);
  });

  it("404 when any project does not exist, and nothing changes", async () => {
    const u = await t.userWithRole("operador", [p1]);
    const res = await assign(u.id, { project_ids: [p2, randomUUID()] });
    expect(res.status).toBe(404);
    expect(res.body.error).toBe("NotFound");
    expect(await projectsOf(u.id)).toEqual([p1]);
  });

  it("404 for an unknown user", async () => {
    const res = await assign(randomUUID(), { project_ids: [p1] });
    expect(res.status).toBe(404);
  });

  it("401 without a token; 403 for other roles", async () => {
    const u = await t.userWithRole("operador", [p1]);
    expect((await assign(u.id, { project_ids: [p2] }, null)).status).toBe(401);
    for (const role of ["supervisor", "operador", "anh_reader"] as const) {
      const other = await t.userWithRole(role, [p1]);
      expect((await assign(u.id, { project_ids: [p2] }, other.token)).status).toBe(403);
    }
    expect(await projectsOf(u.id)).toEqual([p1]);
  });

  it("400 for a bad project_ids, a bad id or malformed JSON", async () => {
    const u = await t.userWithRole("operador", [p1]);
    for (const body of [
      {},
      { project_ids: p1 },
      { project_ids: ["nope"] },
      { project_ids: [p1, 7] },
      { project_ids: null },
    ]) {
      const res = await assign(u.id, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBe("ValidationFailed");
      expect(res.body.message).toMatch(/^project_ids/);
    }
    expect((await assign("x", { project_ids: [] })).status).toBe(400);
    const malformed = await t.request<Body>(`/api/admin/users/${u.id}/projects`, {
      method: "PUT",
      token: admin,
      rawBody: "{project_ids:[]}",
    });
    expect(malformed.status).toBe(400);
    expect(await projectsOf(u.id)).toEqual([p1]);
  });

  it("is audited with the before and after sets", async () => {
    const u = await t.userWithRole("operador", [p1]);
    await assign(u.id, { project_ids: [p2] });
    const [entry] = await t.server.store.audit.list({ entityId: u.id, limit: 1 });
    if (!entry) throw new Error("no audit entry");
    expect(entry.before).toEqual({ projects: [p1] });
    expect(entry.after).toEqual({ projects: [p2] });
  });
});
