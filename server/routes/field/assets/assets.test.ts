import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditOf, expectError } from "../../../testing/fixtures/field-fixtures.ts";
import { TestServer } from "../../../testing/harness.ts";

type Asset = {
  id: string;
  project_id: string;
  name: string;
  asset_type: string;
  latitude: number | null;
  longitude: number | null;
  created_at: string;
  updated_at: string;
};

describe("edge assets: CRUD", () => {
  let t: TestServer;
  let token: string;
  let projectId: string;
  beforeAll(async () => {
    t = await TestServer.start();
    token = (await t.admin()).token;
    projectId = await t.project();
  });
  afterAll(async () => t.stop());

  it("POST creates (201), GET returns it (200)", async () => {
    const res = await t.request<Asset>("/api/edge/assets", {
      token,
      body: {
        project_id: projectId,
        name: " RUB-0412 ",
        asset_type: "well",
        latitude: 3.9714,
        longitude: -71.6932,
      },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      project_id: projectId,
      name: "RUB-0412",
      asset_type: "well",
      latitude: 3.9714,
      longitude: -71.6932,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const got = await t.request<Asset>(`/api/edge/assets/${res.body.id}`, { token });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
  });

  it("accepts every asset type and the coordinate limits", async () => {
    for (const asset_type of ["well", "tank", "pipeline", "station", "meter"]) {
      const res = await t.request<Asset>("/api/edge/assets", {
        token,
        body: { project_id: projectId, name: asset_type, asset_type, latitude: -90, longitude: 180 },
      });
      expect(res.status).toBe(201);
      expect(res.body.asset_type).toBe(asset_type);
    }
  });

  it("GET /projects/{id}/assets lists the project's assets only", async () => {
    const p = await t.project();
    const a = await t.asset(p, "well");
    const b = await t.asset(p, "tank");
    const res = await t.request<Asset[]>(`/api/edge/projects/${p}/assets`, { token });
    expect(res.status).toBe(200);
    expect(res.body.map((x) => x.id).sort()).toEqual([a, b].sort());
    const empty = await t.request<Asset[]>(`/api/edge/projects/${await t.project()}/assets`, { token });
    expect(empty.body).toEqual([]);
  });

  it("PUT replaces: omitted coordinates become null (200)", async () => {
    const created = await t.request<Asset>("/api/edge/assets", {
      token,
      body: { project_id: projectId, name: "T-1", asset_type: "tank", latitude: 4, longitude: -72 },
    });
    const id = created.body.id;
    const res = await t.request<Asset>(`/api/edge/assets/${id}`, {
      method: "PUT",
      token,
      body: { project_id: projectId, name: "T-1b", asset_type: "meter" },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id,
      name: "T-1b",
      asset_type: "meter",
      latitude: null,
      longitude: null,
    });
    expect(res.body.created_at).toBe(created.body.created_at);
    expect((await t.request<Asset>(`/api/edge/assets/${id}`, { token })).body).toEqual(res.body);
  });

  it("PUT may not move an asset to another project (400 project_id)", async () => {
    const id = await t.asset(projectId);
    const elsewhere = await t.project();
    expectError(
      await t.request(`/api/edge/assets/${id}`, {
        method: "PUT",
        token,
        body: { project_id: elsewhere, name: "moved", asset_type: "well" },
      }),
      400,
      "ValidationFailed",
      "project_id",
    );
    expect((await t.request<Asset>(`/api/edge/assets/${id}`, { token })).body.project_id).toBe(projectId);
  });

  it("DELETE answers 204, then the asset is gone", async () => {
    const id = await t.asset(projectId);
    const del = await t.request(`/api/edge/assets/${id}`, { method: "DELETE", token });
    expect(del.status).toBe(204);
    expectError(await t.request(`/api/edge/assets/${id}`, { token }), 404, "NotFound");
    expectError(await t.request(`/api/edge/assets/${id}`, { method: "DELETE", token }), 404, "NotFound");
  });

  it("audits create, update and delete with the project id", async () => {
    const id = await t.asset(projectId);
    await t.request(`/api/edge/assets/${id}`, {
      method: "PUT",
      token,
      body: { project_id: projectId, name: "audited", asset_type: "station" },
    });
    await t.request(`/api/edge/assets/${id}`, { method: "DELETE", token });
    const entries = await auditOf(t, id);
    expect(entries.map((e) => [e.entity, e.action, e.project_id])).toEqual([
      ["asset", "create", projectId],
      ["asset", "update", projectId],
      ["asset", "delete", projectId],
    ]);
    expect(JSON.parse(entries[1]?.after ?? "null")).toMatchObject({ name: "audited", asset_type: "station" });
    expect(JSON.parse(entries[2]?.before ?? "null")).toMatchObject({ id, devices: [] });
  });

  it("401 without a token; 404 for unknown ids and projects", async () => {
    const id = randomUUID();
    for (const [method, path] of [
      ["GET", `/api/edge/projects/${id}/assets`],
      ["POST", "/api/edge/assets"],
      ["GET", `/api/edge/assets/${id}`],
      ["PUT", `/api/edge/assets/${id}`],
      ["DELETE", `/api/edge/assets/${id}`],
    ] as const) {
      expectError(
        await t.request(path, { method, body: method === "POST" || method === "PUT" ? {} : undefined }),
        401,
        "Unauthorized",
      );
    }
    const body = { project_id: id, name: "x", asset_type: "well" };
    expectError(await t.request(`/api/edge/projects/${id}/assets`, { token }), 404, "NotFound");
    expectError(await t.request("/api/edge/assets", { token, body }), 404, "NotFound");
    expectError(await t.request(`/api/edge/assets/${id}`, { token }), 404, "NotFound");
    expectError(await t.request(`/api/edge/assets/${id}`, { method: "PUT", token, body }), 404, "NotFound");
    expectError(await t.request(`/api/edge/assets/${id}`, { method: "DELETE", token }), 404, "NotFound");
  });
});
