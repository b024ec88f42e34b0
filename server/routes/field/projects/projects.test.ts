import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  auditOf,
  createDevice,
  createVariable,
  expectError,
} from "../../../testing/fixtures/field-fixtures.ts";
import { TestServer } from "../../../testing/harness.ts";

type Project = {
  id: string;
  name: string;
  description: string | null;
  location: string | null;
  timezone: string;
  is_active: boolean;
  last_health_report: unknown;
  created_at: string;
  updated_at: string;
};

describe("edge projects: CRUD", () => {
  let t: TestServer;
  let token: string;
  beforeAll(async () => {
    t = await TestServer.start();
    token = (await t.admin()).token;
  });
  afterAll(async () => t.stop());

  it("POST creates with defaults (201), GET returns it (200)", async () => {
    const res = await t.request<Project>("/api/edge/projects", { token, body: { name: "  Rubiales  " } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: "Rubiales",
      slug: expect.stringMatching(/^rubiales(-\d+)?$/),
      description: null,
      location: null,
      timezone: "America/Bogota",
      is_active: true,
      auto_deploy: true,
      sparkplug_edge_node_id: "agent",
      sparkplug_primary_host_id: null,
      last_health_report: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(new Date(res.body.created_at).toISOString()).toBe(res.body.created_at);
    const got = await t.request<Project>(`/api/edge/projects/${res.body.id}`, { token });
    expect(got.status).toBe(200);
    // GET by id adds where the configuration stands (config-status.test.ts).
    expect(got.body).toEqual({
      ...res.body,
      config_status: { deployed_version: null, deployed_hash: null, pending_changes: false },
    });
  });

  it("keeps every optional field and canonicalises the time zone", async () => {
    const res = await t.request<Project>("/api/edge/projects", {
      token,
      body: {
        name: "Castilla",
        description: "Bloque Cubarral",
        location: "Meta",
        timezone: "america/bogota",
        is_active: false,
      },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      description: "Bloque Cubarral",
      location: "Meta",
      timezone: "America/Bogota",
      is_active: false,
    });
  });

  it("stores blank description and location as null", async () => {
    const res = await t.request<Project>("/api/edge/projects", {
      token,
      body: { name: "Blank", description: "   ", location: "", timezone: "US/Eastern" },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ description: null, location: null, timezone: "America/New_York" });
  });

  it("PUT replaces: omitted optional fields go back to their defaults (200)", async () => {
    const created = await t.request<Project>("/api/edge/projects", {
      token,
      body: { name: "Chichimene", description: "d", location: "l", timezone: "UTC", is_active: false },
    });
    const id = created.body.id;
    const full = await t.request<Project>(`/api/edge/projects/${id}`, {
      method: "PUT",
      token,
      body: {
        name: "Chichimene 2",
        description: "d2",
        location: "l2",
        timezone: "Europe/Madrid",
        is_active: false,
      },
    });
    expect(full.status).toBe(200);
    expect(full.body).toMatchObject({ name: "Chichimene 2", description: "d2", timezone: "Europe/Madrid" });

    const replaced = await t.request<Project>(`/api/edge/projects/${id}`, {
      method: "PUT",
      token,
      body: { name: "Chichimene 3" },
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({
      id,
      name: "Chichimene 3",
      description: null,
      location: null,
      timezone: "America/Bogota",
      is_active: true,
      created_at: created.body.created_at,
    });
    expect((await t.request<Project>(`/api/edge/projects/${id}`, { token })).body).toMatchObject(
      replaced.body,
    );
  });

  it("DELETE answers 204, then the project is gone (404 on GET, PUT, DELETE, full)", async () => {
    const id = await t.project();
    const del = await t.request(`/api/edge/projects/${id}`, { method: "DELETE", token });
    expect(del.status).toBe(204);
    expect(del.text).toBe("");
    expectError(await t.request(`/api/edge/projects/${id}`, { token }), 404, "NotFound");
    expectError(
      await t.request(`/api/edge/projects/${id}`, { method: "PUT", token, body: { name: "x" } }),
      404,
      "NotFound",
    );
    expectError(await t.request(`/api/edge/projects/${id}`, { method: "DELETE", token }), 404, "NotFound");
    expectError(await t.request(`/api/edge/projects/${id}/full`, { token }), 404, "NotFound");
  });

  it("GET /full nests assets → devices → variables", async () => {
    const id = await t.project();
    const assetId = await t.asset(id, "well");
    const tankId = await t.asset(id, "tank");
    const deviceId = await createDevice(t, assetId, { name: "rtu", protocol: "dnp3", slave_id: 10 });
    const variableId = await createVariable(t, deviceId, { alias: "whp", unit: "psi" });
    const res = await t.request<Project & { assets: { id: string; devices: unknown[] }[] }>(
      `/api/edge/projects/${id}/full`,
      { token },
    );
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(id);
    const well = res.body.assets.find((a) => a.id === assetId);
    expect(well).toMatchObject({
      project_id: id,
      asset_type: "well",
      devices: [
        {
          id: deviceId,
          protocol: "dnp3",
          slave_id: 10,
          variables: [{ id: variableId, device_id: deviceId, alias: "whp", unit: "psi" }],
        },
      ],
    });
    expect(res.body.assets.find((a) => a.id === tankId)).toMatchObject({ asset_type: "tank", devices: [] });
  });

  it("GET /projects lists every project for the superadmin", async () => {
    const a = await t.project();
    const b = await t.project();
    const res = await t.request<Project[]>("/api/edge/projects", { token });
    expect(res.status).toBe(200);
    const ids = res.body.map((p) => p.id);
    expect(ids).toEqual(expect.arrayContaining([a, b]));
  });

  it("records create, update and delete in the audit log with before/after", async () => {
    const id = await t.project();
    await t.request(`/api/edge/projects/${id}`, { method: "PUT", token, body: { name: "Audited" } });
    await t.request(`/api/edge/projects/${id}`, { method: "DELETE", token });
    const entries = await auditOf(t, id);
    expect(entries.map((e) => [e.entity, e.action])).toEqual([
      ["project", "create"],
      ["subscription", "create"],
      ["project", "update"],
      ["project", "delete"],
    ]);
    const [create, , update, remove] = entries;
    expect(create?.before).toBeNull();
    expect(JSON.parse(update?.after ?? "null")).toMatchObject({ id, name: "Audited" });
    expect(JSON.parse(update?.before ?? "null")).toMatchObject({ id });
    expect(JSON.parse(remove?.before ?? "null")).toMatchObject({ id, name: "Audited", assets: [] });
    expect(remove?.after).toBeNull();
    expect(remove?.project_id).toBe(id);
  });

  it("401 without a token on every route", async () => {
    const id = randomUUID();
    for (const [method, path] of [
      ["GET", "/api/edge/projects"],
      ["POST", "/api/edge/projects"],
      ["GET", `/api/edge/projects/${id}`],
      ["PUT", `/api/edge/projects/${id}`],
      ["DELETE", `/api/edge/projects/${id}`],
      ["GET", `/api/edge/projects/${id}/full`],
    ] as const) {
      const res = await t.request(path, {
        method,
        body: method === "POST" || method === "PUT" ? {} : undefined,
      });
      expectError(res, 401, "Unauthorized");
    }
    expectError(await t.request("/api/edge/projects", { token: "not-a-jwt" }), 401, "Unauthorized");
  });

  it("404 for unknown ids and 400 for ids that are not UUIDs", async () => {
    const id = randomUUID();
    expectError(await t.request(`/api/edge/projects/${id}`, { token }), 404, "NotFound");
    expectError(await t.request(`/api/edge/projects/${id}/full`, { token }), 404, "NotFound");
    expectError(
      await t.request(`/api/edge/projects/${id}`, { method: "PUT", token, body: { name: "x" } }),
      404,
      "NotFound",
    );
    expectError(await t.request(`/api/edge/projects/${id}`, { method: "DELETE", token }), 404, "NotFound");
    expectError(await t.request("/api/edge/projects/not-a-uuid", { token }), 400, "ValidationFailed", "id");
  });
});
