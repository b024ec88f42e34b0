import mqtt from "mqtt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Payload, topics } from "../../../shared/mqtt/topics.ts";
import { TestServer } from "../../testing/harness.ts";

type Deployment = { id: string; version: number; config_hash: string; created_by: string | null };
type ConfigStatus = {
  deployed_version: number | null;
  deployed_hash: string | null;
  pending_changes: boolean;
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, ms = 8_000) {
  const until = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** Changes to devices, variables and alert rules reach the agent without POST …/deploy (issue 8 §4). */
describe("auto-deploy", () => {
  let t: TestServer;
  let token: string;
  beforeAll(async () => {
    t = await TestServer.start();
    token = (await t.admin()).token;
  });
  afterAll(async () => t.stop());

  const history = async (projectId: string) =>
    (await t.request<Deployment[]>(`/api/edge/projects/${projectId}/deployments`, { token })).body;
  const configStatus = async (projectId: string) =>
    (await t.request<{ config_status: ConfigStatus }>(`/api/edge/projects/${projectId}`, { token })).body
      .config_status;
  const project = async (autoDeploy: boolean) => {
    const res = await t.request<{ id: string }>("/api/edge/projects", {
      token,
      body: { name: "Auto", auto_deploy: autoDeploy },
    });
    expect(res.status).toBe(201);
    return res.body.id;
  };
  const device = async (assetId: string) => {
    const res = await t.request<{ id: string }>(`/api/edge/assets/${assetId}/devices`, {
      token,
      body: { name: "PLC", protocol: "modbus_tcp", host: "127.0.0.1", port: 502, slave_id: 1 },
    });
    expect(res.status).toBe(201);
    return res.body.id;
  };
  const rule = async (projectId: string) => {
    const res = await t.request<{ id: string }>("/api/alert-rules", {
      token,
      body: {
        project_id: projectId,
        name: "High pressure",
        variable_alias: "pressure",
        condition: "gt",
        threshold: 100,
        severity: "warning",
      },
    });
    expect(res.status).toBe(201);
    return res.body.id;
  };
  const toggle = async (ruleId: string) =>
    expect((await t.request(`/api/alert-rules/${ruleId}/toggle`, { method: "PATCH", token })).status).toBe(
      200,
    );

  it("twenty variables created in a row make one deployment, about 2 s after the last", async () => {
    const projectId = await project(true);
    const deviceId = await device(await t.asset(projectId));
    for (let i = 0; i < 20; i++) {
      const res = await t.request(`/api/edge/devices/${deviceId}/variables`, {
        token,
        body: { alias: `tag_${i}`, data_type: "float32", register_address: i * 2 },
      });
      expect(res.status).toBe(201);
    }
    const lastChange = Date.now();
    expect(await history(projectId)).toEqual([]);
    const [only] = await waitFor("the automatic deployment", async () => {
      const h = await history(projectId);
      return h.length > 0 ? h : undefined;
    });
    const after = Date.now() - lastChange;
    expect(after).toBeGreaterThanOrEqual(1_900);
    expect(after).toBeLessThan(4_000);
    expect(only).toMatchObject({ version: 1, created_by: null, variables: 20 });
    expect(await configStatus(projectId)).toEqual({
      deployed_version: 1,
      deployed_hash: only?.config_hash,
      pending_changes: false,
    });
    // Nothing more is deployed: the burst is over.
    await sleep(2_500);
    expect(await history(projectId)).toHaveLength(1);
  });

  it("a created and a toggled alert rule reach the agent's retained config topic without a manual deploy", async () => {
    const projectId = await project(true);
    await device(await t.asset(projectId));
    const issued = await t.request<{ agent_token: string }>(`/api/edge/projects/${projectId}/agent-token`, {
      method: "POST",
      token,
    });
    expect(issued.status).toBe(201);
    const configs: Payload<"config">[] = [];
    const agent = await mqtt.connectAsync(`mqtt://127.0.0.1:${t.server.broker.port}`, {
      username: `agent:${projectId}`,
      password: issued.body.agent_token,
      reconnectPeriod: 0,
    });
    try {
      agent.on("message", (_topic, payload) => configs.push(JSON.parse(payload.toString())));
      await agent.subscribeAsync(topics.config(projectId), { qos: 1 });
      const first = await waitFor("the device's deployment", () => configs.at(-1));
      expect(first.config.alert_rules).toEqual([]);

      const ruleId = await rule(projectId);
      const withRule = await waitFor("the rule at the agent", () =>
        configs.find((c) => c.config.alert_rules.some((r) => r.id === ruleId)),
      );
      expect(withRule.version).toBe(first.version + 1);

      await toggle(ruleId);
      const disabled = await waitFor("the disabled rule gone from the agent's config", () =>
        configs.find((c) => c.version > withRule.version),
      );
      expect(disabled.config.alert_rules).toEqual([]);
      expect(disabled.hash).toBe(first.hash);
    } finally {
      await agent.endAsync();
    }
  });

  it("a change that leaves the configuration hash unchanged makes no deployment", async () => {
    const projectId = await project(true);
    const ruleId = await rule(projectId);
    const [deployed] = await waitFor("the rule's deployment", async () => {
      const h = await history(projectId);
      return h.length > 0 ? h : undefined;
    });
    // Off and on again inside one quiet time: the configuration is what was deployed.
    await toggle(ruleId);
    await toggle(ruleId);
    await sleep(2_800);
    expect(await history(projectId)).toEqual([deployed]);
    expect((await configStatus(projectId)).pending_changes).toBe(false);
  });

  it("with auto_deploy false a change stays pending; turning it on deploys it", async () => {
    const projectId = await project(false);
    await rule(projectId);
    await sleep(2_800);
    expect(await history(projectId)).toEqual([]);
    expect(await configStatus(projectId)).toEqual({
      deployed_version: null,
      deployed_hash: null,
      pending_changes: true,
    });
    const put = await t.request(`/api/edge/projects/${projectId}`, {
      method: "PUT",
      token,
      body: { name: "Auto", auto_deploy: true },
    });
    expect(put.status).toBe(200);
    await waitFor("the pending change deployed", async () =>
      (await configStatus(projectId)).pending_changes ? undefined : true,
    );
    expect((await history(projectId)).map((d) => d.version)).toEqual([1]);
  });

  it("stop() clears the pending timers; the next start() deploys what was pending", async () => {
    const projectId = await project(true);
    await rule(projectId);
    const auto = t.server.autoDeploy;
    expect(auto.pending).toBeGreaterThan(0);
    await t.restart(async () => {
      expect(auto.pending).toBe(0);
    });
    expect(await history(projectId)).toEqual([]);
    await waitFor("the deployment after the restart", async () =>
      (await history(projectId)).length === 1 ? true : undefined,
    );
  });
});
