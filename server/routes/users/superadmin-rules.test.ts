import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestServer } from "../../testing/harness.ts";

type Body = { error: string; message: string; id: string; role: string; is_active: boolean };

/** Only a superadmin creates, promotes to or modifies a superadmin; one active superadmin always remains. */
describe("superadmin rules", () => {
  let t: TestServer;
  let root: { token: string; email: string; password: string };
  let rootId: string;
  let admin: string;
  beforeAll(async () => {
    t = await TestServer.start();
    root = await t.admin();
    admin = (await t.userWithRole("admin")).token;
    const users = await t.request<{ id: string; email: string }[]>("/api/admin/users", { token: root.token });
    rootId = users.body.find((u) => u.email === root.email)?.id ?? "";
  });
  afterAll(async () => t.stop());

  const input = (role: string, over: Record<string, unknown> = {}) => ({
    email: `${role}-${randomUUID().slice(0, 8)}@caudal.test`,
    name: `A ${role}`,
    role,
    password: "password-123",
    ...over,
  });
  const create = (token: string, body: unknown) => t.request<Body>("/api/admin/users", { token, body });
  const put = (token: string, id: string, body: unknown) =>
    t.request<Body>(`/api/admin/users/${id}`, { method: "PUT", token, body });

  it("an admin may not create a superadmin; a superadmin may", async () => {
    const denied = await create(admin, input("superadmin"));
    expect(denied.status).toBe(403);
    expect(denied.body.error).toBe("Forbidden");
    const ok = await create(root.token, input("superadmin"));
    expect(ok.status).toBe(201);
    expect(ok.body.role).toBe("superadmin");
  });

  it("an admin may create and manage admins and lower roles", async () => {
    const other = await create(admin, input("admin"));
    expect(other.status).toBe(201);
    const demoted = await put(admin, other.body.id, input("supervisor"));
    expect(demoted.status).toBe(200);
    expect(demoted.body.role).toBe("supervisor");
  });

  it("an admin may not promote anyone to superadmin", async () => {
    const u = await create(admin, input("operador"));
    const promoted = await put(admin, u.body.id, input("superadmin"));
    expect(promoted.status).toBe(403);
    const unchanged = await t.request<Body>(`/api/admin/users/${u.body.id}`, { token: admin });
    expect(unchanged.body.role).toBe("operador");
    expect((await put(root.token, u.body.id, input("superadmin"))).status).toBe(200);
  });

  it("an admin may read a superadmin but not change, reset or reassign one", async () => {
    const sa = await create(root.token, input("superadmin"));
    expect((await t.request(`/api/admin/users/${sa.body.id}`, { token: admin })).status).toBe(200);
    expect((await put(admin, sa.body.id, input("operador"))).status).toBe(403);
    expect((await put(admin, sa.body.id, input("superadmin", { is_active: false }))).status).toBe(403);
    const reset = await t.request<Body>(`/api/admin/users/${sa.body.id}/reset-password`, {
      token: admin,
      body: { new_password: "taken-over!" },
    });
    expect(reset.status).toBe(403);
    const projects = await t.request<Body>(`/api/admin/users/${sa.body.id}/projects`, {
      method: "PUT",
      token: admin,
      body: { project_ids: [] },
    });
    expect(projects.status).toBe(403);
    // The superadmin's password still works.
    const email = (
      await t.request<{ email: string }>(`/api/admin/users/${sa.body.id}`, { token: root.token })
    ).body.email;
    expect((await t.login(email, "password-123")).status).toBe(200);
  });

  it("the last active superadmin cannot be demoted or deactivated (409); with another one it can", async () => {
    // Other superadmins exist from earlier tests: take them out first, as root.
    const all = await t.request<Body[]>("/api/admin/users", { token: root.token });
    for (const u of all.body.filter((x) => x.role === "superadmin" && x.id !== rootId)) {
      const res = await put(root.token, u.id, input("admin"));
      expect(res.status).toBe(200);
    }
    const demoteSelf = await put(root.token, rootId, {
      ...input("admin"),
      email: root.email,
      password: root.password,
    });
    expect(demoteSelf.status).toBe(409);
    expect(demoteSelf.body.message).toContain("last active superadmin");
    expect((await t.login(root.email, root.password)).body.role).toBe("superadmin");

    const second = await create(root.token, input("superadmin"));
    const deactivated = await put(root.token, second.body.id, input("superadmin", { is_active: false }));
    expect(deactivated.status).toBe(200);
    // An inactive superadmin does not count.
    const again = await put(root.token, rootId, {
      ...input("admin"),
      email: root.email,
      password: root.password,
    });
    expect(again.status).toBe(409);
  });
});
