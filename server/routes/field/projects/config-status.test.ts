import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectError } from "../../../testing/fixtures/field-fixtures.ts";
import { TestServer } from "../../../testing/harness.ts";

type ConfigStatus = {
  deployed_version: number | null;
  deployed_hash: string | null;
  pending_changes: boolean;
};
type Project = { id: string; auto_deploy: boolean; config_status?: ConfigStatus };

/** The project's auto_deploy setting, and config_status on GET /edge/projects/{id}. */
describe("edge projects: auto_deploy and config_status", () => {
  let t: TestServer;
  let token: string;
  beforeAll(async () => {
    t = await TestServer.start();
    token = (await t.admin()).token;
  });
  afterAll(async () => t.stop());

  const get = async (id: string) => {
    const res = await t.request<Project>(`/api/edge/projects/${id}`, { token });
    expect(res.status).toBe(200);
    return res.body;
  };
  const create = (body: Record<string, unknown>) =>
    t.request<Project>("/api/edge/projects", { token, body: { name: "Field", ...body } });

  it("auto_deploy defaults to true, is set on create and replaced by PUT (omitted: back to true)", async () => {
    const plain = await create({});
    expect(plain.status).toBe(201);
    expect(plain.body.auto_deploy).toBe(true);
    const manual = await create({ auto_deploy: false });
    expect(manual.status).toBe(201);
    expect(manual.body.auto_deploy).toBe(false);
    expect((await get(manual.body.id)).auto_deploy).toBe(false);
    const list = await t.request<Project[]>("/api/edge/projects", { token });
    expect(list.body.find((p) => p.id === manual.body.id)?.auto_deploy).toBe(false);

    const put = (body: Record<string, unknown>) =>
      t.request<Project>(`/api/edge/projects/${manual.body.id}`, { method: "PUT", token, body });
    expect((await put({ name: "Field", auto_deploy: false })).body.auto_deploy).toBe(false);
    expect((await put({ name: "Field" })).body.auto_deploy).toBe(true);
  });

  it("a non-boolean auto_deploy is a 400 naming the field, on create and on PUT", async () => {
    expectError(await create({ auto_deploy: "yes" }), 400, "ValidationFailed", "auto_deploy");
    const id = await t.project();
    const res = await t.request(`/api/edge/projects/${id}`, {
      method: "PUT",
      token,
      body: { name: "Field", auto_deploy: 1 },
    });
    expectError(res, 400, "ValidationFailed", "auto_deploy");
    expect((await get(id)).auto_deploy).toBe(true);
  });

  it("config_status: nothing pending when empty; a change is pending until deployed", async () => {
    const project = await create({ auto_deploy: false });
    const id = project.body.id;
    expect((await get(id)).config_status).toEqual({
      deployed_version: null,
      deployed_hash: null,
      pending_changes: false,
    });
    const assetId = await t.asset(id);
    const device = await t.request(`/api/edge/assets/${assetId}/devices`, {
      token,
      body: { name: "PLC", protocol: "modbus_tcp", host: "127.0.0.1", port: 502, slave_id: 1 },
    });
    expect(device.status).toBe(201);
    expect((await get(id)).config_status).toEqual({
      deployed_version: null,
      deployed_hash: null,
      pending_changes: true,
    });
    const deployed = await t.request<{ version: number; config_hash: string }>(
      `/api/edge/projects/${id}/deploy`,
      { method: "POST", token },
    );
    expect(deployed.status).toBe(200);
    expect((await get(id)).config_status).toEqual({
      deployed_version: 1,
      deployed_hash: deployed.body.config_hash,
      pending_changes: false,
    });
    const rule = await t.request("/api/alert-rules", {
      token,
      body: {
        project_id: id,
        name: "High pressure",
        variable_alias: "pressure",
        condition: "gt",
        threshold: 100,
        severity: "warning",
      },
    });
    expect(rule.status).toBe(201);
    expect((await get(id)).config_status).toMatchObject({ deployed_version: 1, pending_changes: true });
  });

  it("config_status is declared in the OpenAPI document of GET /edge/projects/{id}", async () => {
    type Doc = {
      paths: Record<string, Record<string, unknown>>;
      components: { schemas: Record<string, { properties?: Record<string, unknown>; required?: string[] }> };
    };
    const doc = (await t.request<Doc>("/docs/openapi.json")).body;
    expect(JSON.stringify(doc.paths["/api/edge/projects/{id}"]?.get)).toContain(
      "EdgeProjectWithConfigStatus",
    );
    const schemas = doc.components.schemas;
    expect(JSON.stringify(schemas.EdgeProjectWithConfigStatus)).toContain('"required":["config_status"]');
    expect(Object.keys(schemas.ConfigStatus?.properties ?? {})).toEqual([
      "deployed_version",
      "deployed_hash",
      "pending_changes",
    ]);
    expect(schemas.EdgeProject?.required).toContain("auto_deploy");
    expect(schemas.CreateProjectRequest?.properties).toHaveProperty("auto_deploy");
  });
});
