import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CaudalAgent } from "../agent.ts";
import { freePort } from "../testing/child-agent.ts";
import { Pipeline, sleep, waitFor } from "../testing/pipeline.ts";

describe("deployment: configuration over MQTT, history, and the last applied config offline", () => {
  let p: Pipeline;
  let token: string;
  let agent: CaudalAgent;
  let dir: string;
  beforeAll(async () => {
    // Deployed by hand: this suite counts versions.
    p = await Pipeline.start({ pollIntervalMs: 100, autoDeploy: false });
    token = (await p.t.admin()).token;
    dir = p.agentDir();
    agent = p.newAgent(dir);
    await agent.start();
    p.moveWell(50);
  });
  afterAll(async () => {
    await agent.stop();
    await p.stop();
  });

  const polling = async () => {
    const before = await p.storedPoints();
    await waitFor("the agent to keep polling", async () => (await p.storedPoints()) > before + 8);
  };
  const addDevice = async (body: Record<string, unknown>) => {
    const res = await p.t.request<{ id: string }>(`/api/edge/assets/${p.assetId}/devices`, { token, body });
    expect(res.status).toBe(201);
    return res.body.id;
  };
  const removeDevice = async (id: string) =>
    expect((await p.t.request(`/api/edge/devices/${id}`, { method: "DELETE", token })).status).toBe(204);
  /** A deploy of an unchanged configuration makes no new version: toggling a rule changes it. */
  let ruleId: string | undefined;
  const changeConfig = async () => {
    if (!ruleId) {
      const res = await p.t.request<{ id: string }>("/api/alert-rules", {
        token,
        body: {
          project_id: p.projectId,
          name: "High pressure",
          variable_alias: "wellhead_pressure",
          condition: "gt",
          threshold: 1e9,
          severity: "warning",
        },
      });
      expect(res.status).toBe(201);
      ruleId = res.body.id;
      return;
    }
    const res = await p.t.request(`/api/alert-rules/${ruleId}/toggle`, { method: "PATCH", token });
    expect(res.status).toBe(200);
  };

  it("deploy → applied: version, content hash, status and timestamps in the history", async () => {
    const d = await p.deploy();
    const applied = await p.waitDeployment(d.id);
    expect(applied).toMatchObject({ version: 1, status: "applied", error: null, devices: 1, variables: 4 });
    expect(applied.config_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(Date.parse(applied.updated_at)).toBeGreaterThanOrEqual(Date.parse(applied.created_at));
    expect(agent.status().config).toMatchObject({ version: 1, hash: applied.config_hash });
    await polling();
  });

  it("a device the agent cannot poll (a variable without its address) → failed with the reason; the old configuration keeps polling", async () => {
    const opc = await addDevice({
      name: "Compressor OPC UA",
      protocol: "opc_ua",
      host: "10.0.0.9",
    });
    // The API lets a variable wait for its address; the agent cannot poll it and says which and why.
    const tag = await p.t.request(`/api/edge/devices/${opc}/variables`, {
      token,
      body: { alias: "discharge_pressure", data_type: "float" },
    });
    expect(tag.status).toBe(201);
    const d = await p.deploy();
    const failed = await p.waitDeployment(d.id, "failed");
    expect(failed.error).toContain('variable "discharge_pressure": address: required for opc_ua');
    expect(agent.status().config?.version).toBe(1);
    await polling();
    await removeDevice(opc);
  });

  it("string variables → failed with the reason; the old configuration keeps polling", async () => {
    const device = await addDevice({
      name: "Flow computer",
      protocol: "modbus_tcp",
      host: "127.0.0.1",
      port: p.plc.port,
    });
    // Enough of them that the reason outgrows one agent log entry (4,000 characters).
    for (let i = 0; i < 60; i++) {
      const v = await p.t.request(`/api/edge/devices/${device}/variables`, {
        token,
        body: {
          alias: `meter_tag_${i}`,
          data_type: "string",
          register_address: 40 + i,
          poll_interval_ms: 1000,
        },
      });
      expect(v.status).toBe(201);
    }
    const d = await p.deploy();
    const failed = await p.waitDeployment(d.id, "failed");
    expect(failed.error).toContain('variable "meter_tag_0": string is not numeric telemetry');
    expect(failed.error).toContain('variable "meter_tag_59": string is not numeric telemetry');
    expect(agent.status().config?.version).toBe(1);
    await polling();
    await removeDevice(device);
  });

  it("two deployments in a row are applied one after the other, leaving one set of pollers", async () => {
    // Sent back to back, the two configs reach the agent in one read: their applies must not overlap.
    await changeConfig();
    const first = await p.deploy();
    await changeConfig();
    const second = await p.deploy();
    expect(second.version).toBe(first.version + 1);
    await p.waitDeployment(second.id);
    expect(agent.status().config?.version).toBe(second.version);
    // Measure the Modbus request rate: one poller (4 tags in one read every 100 ms) is ~10 requests/s.
    const before = p.plc.requests;
    await sleep(1_000);
    const perSecond = p.plc.requests - before;
    expect(perSecond).toBeGreaterThan(4);
    expect(perSecond).toBeLessThan(16);
    const history = await p.deployments();
    expect(history.find((d) => d.id === first.id)?.status).toBe("applied");
  });

  it("a version deployed while the agent is away is superseded by the newer one it applies", async () => {
    await agent.stop();
    // The agent forwarded its log at stop: both refusals are there, the long one cut to fit.
    const refusals = await waitFor("the refusals in the agent logs", async () => {
      const logs = await p.t.request<{ category: string; message: string }[]>(
        `/api/edge/agents/logs?project_id=${p.projectId}&level=error`,
        { token },
      );
      const found = logs.body.filter((e) => e.category === "config").map((e) => e.message);
      return found.length >= 2 ? found : undefined;
    });
    expect(refusals).toHaveLength(2);
    expect(refusals[0]).toMatch(/^deployment v3 refused, keeping the current configuration: .+…$/);
    expect(refusals[0]).toHaveLength(4000);
    expect(refusals[1]).toContain("deployment v2 refused, keeping the current configuration: device");
    await changeConfig();
    const missed = await p.deploy();
    await changeConfig();
    const latest = await p.deploy();
    agent = p.newAgent(dir);
    await agent.start();
    await p.waitDeployment(latest.id);
    const history = await p.deployments();
    expect(history.find((d) => d.id === missed.id)).toMatchObject({
      status: "failed",
      error: `superseded by version ${latest.version}`,
    });
    // Newest first, one version per deployment, ascending with time.
    const versions = history.map((d) => d.version);
    expect(versions).toEqual([...versions].sort((a, b) => b - a));
    expect(new Set(versions).size).toBe(versions.length);
    expect(versions.at(-1)).toBe(1);
    expect(versions[0]).toBe(latest.version);
    const created = history.map((d) => Date.parse(d.created_at)).reverse();
    expect(created).toEqual([...created].sort((a, b) => a - b));
  });

  it("restarted with no server reachable, the agent runs its last applied configuration from its store", async () => {
    const applied = agent.status().config;
    await agent.stop();
    // Nothing listens on this port: the broker is unreachable for the whole run.
    agent = p.newAgent(dir, undefined, { mqtt_url: `mqtt://127.0.0.1:${await freePort()}` });
    await agent.start();
    const local = async () =>
      (await fetch(`http://127.0.0.1:${agent.localApiPort}/status`).then((r) => r.json())) as {
        connected: boolean;
        config: { version: number; hash: string } | null;
        last_values: { alias: string; ts: string; quality: string }[];
      };
    const first = await waitFor("values polled offline", async () => {
      const s = await local();
      return s.last_values.length === 4 ? s : undefined;
    });
    expect(first.connected).toBe(false);
    expect(first.config).toMatchObject({ version: applied?.version, hash: applied?.hash });
    const ts = (s: typeof first) => Math.max(...s.last_values.map((v) => Date.parse(v.ts)));
    await waitFor("last_values to move", async () => ts(await local()) > ts(first));
    expect((await local()).last_values.every((v) => v.quality === "good")).toBe(true);
  });
});
