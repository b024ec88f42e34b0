import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestServer } from "../../testing/harness.ts";

type Deployment = { id: string; version: number; config_hash: string; status: string };

/** POST /edge/projects/{id}/deploy: a deployment per configuration, not per request. */
describe("deploy: idempotent on the configuration hash", () => {
  let t: TestServer;
  let token: string;
  beforeAll(async () => {
    t = await TestServer.start();
    token = (await t.admin()).token;
  });
  afterAll(async () => t.stop());

  const deploy = (projectId: string) =>
    t.request<Deployment>(`/api/edge/projects/${projectId}/deploy`, { method: "POST", token });
  const history = async (projectId: string) =>
    (await t.request<Deployment[]>(`/api/edge/projects/${projectId}/deployments`, { token })).body;

  it("a deploy with no change returns 200 with the deployed one and makes no new version", async () => {
    const projectId = await t.project();
    const assetId = await t.asset(projectId);
    const first = await deploy(projectId);
    expect(first.status).toBe(200);
    expect(first.body.version).toBe(1);

    const again = await deploy(projectId);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect((await history(projectId)).map((d) => d.version)).toEqual([1]);

    // A change makes a new version; deploying it twice still makes only one.
    const device = await t.request(`/api/edge/assets/${assetId}/devices`, {
      token,
      body: { name: "PLC", protocol: "modbus_tcp", host: "127.0.0.1", port: 502, slave_id: 1 },
    });
    expect(device.status).toBe(201);
    const second = await deploy(projectId);
    expect(second.status).toBe(200);
    expect(second.body.version).toBe(2);
    expect(second.body.config_hash).not.toBe(first.body.config_hash);
    expect((await deploy(projectId)).body.id).toBe(second.body.id);
    expect((await history(projectId)).map((d) => d.version)).toEqual([2, 1]);
  });
});
