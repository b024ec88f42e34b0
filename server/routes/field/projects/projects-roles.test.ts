import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectError } from "../../../testing/fixtures/field-fixtures.ts";
import { TestServer } from "../../../testing/harness.ts";

/**
 * Roles (shared/roles.ts) and project scoping: create and delete need projects:manage (admin and
 * superadmin), replace needs projects:write; others' projects are 404.
 */
describe("edge projects: roles and scoping", () => {
  let t: TestServer;
  let adminToken: string;
  let mine: string;
  let other: string;
  beforeAll(async () => {
    t = await TestServer.start();
    adminToken = (await t.admin()).token;
    mine = await t.project();
    other = await t.project();
  });
  afterAll(async () => t.stop());

  const listIds = async (token: string) =>
    (await t.request<{ id: string }[]>("/api/edge/projects", { token })).body.map((p) => p.id);

  it("admin sees every project", async () => {
    const admin = await t.userWithRole("admin");
    expect(await listIds(admin.token)).toEqual(expect.arrayContaining([mine, other]));
    expect((await t.request(`/api/edge/projects/${other}`, { token: admin.token })).status).toBe(200);
  });

  for (const role of ["supervisor", "operador", "anh_reader"] as const) {
    it(`${role} lists and reads only assigned projects; others are 404`, async () => {
      const user = await t.userWithRole(role, [mine]);
      expect(await listIds(user.token)).toEqual([mine]);
      expect((await t.request(`/api/edge/projects/${mine}`, { token: user.token })).status).toBe(200);
      expectError(await t.request(`/api/edge/projects/${other}`, { token: user.token }), 404, "NotFound");
    });
  }

  it("a user with no projects lists none", async () => {
    const user = await t.userWithRole("operador");
    expect(await listIds(user.token)).toEqual([]);
  });

  it("supervisor replaces an assigned project but may not create or delete one (403)", async () => {
    const sup = await t.userWithRole("supervisor", [mine]);
    expectError(
      await t.request("/api/edge/projects", { token: sup.token, body: { name: "Own" } }),
      403,
      "Forbidden",
    );
    expectError(await t.request("/api/edge/projects", { token: sup.token, body: {} }), 403, "Forbidden");
    const put = await t.request(`/api/edge/projects/${mine}`, {
      method: "PUT",
      token: sup.token,
      body: { name: "Mine, renamed" },
    });
    expect(put.status).toBe(200);
    expectError(
      await t.request(`/api/edge/projects/${other}`, {
        method: "PUT",
        token: sup.token,
        body: { name: "x" },
      }),
      404,
      "NotFound",
    );
    // Deleting erases operational records and ANH reports: admin and superadmin only, before any lookup.
    for (const id of [mine, other, randomUUID()]) {
      expectError(
        await t.request(`/api/edge/projects/${id}`, { method: "DELETE", token: sup.token }),
        403,
        "Forbidden",
      );
    }
    expect((await t.request(`/api/edge/projects/${mine}`, { token: adminToken })).status).toBe(200);
  });

  it("admin creates and deletes projects", async () => {
    const admin = await t.userWithRole("admin");
    const res = await t.request<{ id: string }>("/api/edge/projects", {
      token: admin.token,
      body: { name: "By admin" },
    });
    expect(res.status).toBe(201);
    expect(
      (await t.request(`/api/edge/projects/${res.body.id}`, { method: "DELETE", token: admin.token })).status,
    ).toBe(204);
  });

  for (const role of ["operador", "anh_reader"] as const) {
    it(`${role} may not create, replace or delete (403, before existence and body checks)`, async () => {
      const user = await t.userWithRole(role, [mine]);
      expectError(
        await t.request("/api/edge/projects", { token: user.token, body: { name: "x" } }),
        403,
        "Forbidden",
      );
      expectError(await t.request("/api/edge/projects", { token: user.token, body: {} }), 403, "Forbidden");
      for (const id of [mine, randomUUID()]) {
        expectError(
          await t.request(`/api/edge/projects/${id}`, {
            method: "PUT",
            token: user.token,
            body: { name: "x" },
          }),
          403,
          "Forbidden",
        );
        expectError(
          await t.request(`/api/edge/projects/${id}`, { method: "DELETE", token: user.token }),
          403,
          "Forbidden",
        );
      }
      expect(
        (await t.request<{ name: string }>(`/api/edge/projects/${mine}`, { token: adminToken })).status,
      ).toBe(200);
    });
  }

  it("anh_reader may read the project but not its device configuration (/full → 403)", async () => {
    const reader = await t.userWithRole("anh_reader", [mine]);
    expectError(
      await t.request(`/api/edge/projects/${mine}/full`, { token: reader.token }),
      403,
      "Forbidden",
    );
    const operador = await t.userWithRole("operador", [mine]);
    expect((await t.request(`/api/edge/projects/${mine}/full`, { token: operador.token })).status).toBe(200);
    expectError(
      await t.request(`/api/edge/projects/${other}/full`, { token: operador.token }),
      404,
      "NotFound",
    );
  });
});
