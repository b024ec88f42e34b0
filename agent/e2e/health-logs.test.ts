import mqtt from "mqtt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Payload, topics } from "../../shared/mqtt/topics.ts";
import { Pipeline, waitFor } from "../testing/pipeline.ts";

type Health = {
  status: string;
  reasons: string[];
  last_seen: string;
  uptime_seconds: number;
  config: { version: number | null; hash: string | null } | null;
};
type LogEntry = { id: string; level: string; category: string; message: string; timestamp: string };

describe("agent health and logs", () => {
  let p: Pipeline;
  let token: string;
  beforeAll(async () => {
    p = await Pipeline.start({ pollIntervalMs: 100 });
    token = (await p.t.admin()).token;
  });
  afterAll(async () => p.stop());

  const health = async (projectId = p.projectId) => {
    const res = await p.t.request<Health>(`/api/edge/agents/${projectId}/health`, { token });
    expect(res.status).toBe(200);
    return res.body;
  };
  const healthIs = (status: string, projectId = p.projectId) =>
    waitFor(`health ${status}`, async () => {
      const h = await health(projectId);
      return h.status === status ? h : undefined;
    });

  it("online → degraded (the PLC stops answering) → online → offline (clean stop), with the agent's logs", async () => {
    const agent = p.newAgent();
    await agent.start();
    const plcPort = p.plc.port;
    try {
      const deployed = await p.waitDeployment((await p.deploy()).id);
      p.moveWell(50);
      const online = await healthIs("online");
      expect(online.reasons).toEqual([]);
      // The configuration the agent runs, from its heartbeat (issue 8 §4).
      const running = await waitFor("the running version in health", async () => {
        const h = await health();
        return h.config?.version === deployed.version ? h.config : undefined;
      });
      expect(running).toEqual({ version: deployed.version, hash: deployed.config_hash });
      expect(Date.parse(online.last_seen)).toBeLessThanOrEqual(p.t.clock.now().getTime());

      await p.plc.close();
      const degraded = await healthIs("degraded");
      expect(degraded.reasons.join("; ")).toMatch(/^device Wellhead PLC is failing: /);
      await p.plc.listen(plcPort);
      await healthIs("online");
    } finally {
      await agent.stop();
    }
    const offline = await healthIs("offline");
    expect(offline.reasons).toEqual(["the agent went offline (stopped, or its connection was lost)"]);

    // The agent forwards its own log (flushed at stop): the deployment and the device failure are there.
    const res = await p.t.request<LogEntry[]>(`/api/edge/agents/logs?project_id=${p.projectId}&limit=1000`, {
      token,
    });
    expect(res.status).toBe(200);
    const messages = res.body.map((e) => `${e.level} ${e.category} ${e.message}`);
    expect(messages).toContainEqual(
      expect.stringMatching(/^info config applied configuration v1 \(1 devices\)$/),
    );
    expect(messages).toContainEqual(
      expect.stringMatching(/^warn device Wellhead PLC: .+; retrying in \d+ ms$/),
    );
    expect(messages).toContainEqual(expect.stringMatching(/^info device Wellhead PLC: reconnected$/));
  });

  it("degraded on a backlog older than 5 minutes, offline after 45 s without a heartbeat", async () => {
    // A second project's agent, spoken by a raw MQTT client with the agent's credentials.
    const projectId = await p.t.project();
    const issued = await p.t.request<{ agent_token: string }>(`/api/edge/projects/${projectId}/agent-token`, {
      method: "POST",
      token,
    });
    const client = await mqtt.connectAsync(p.mqttUrl, {
      username: `agent:${projectId}`,
      password: issued.body.agent_token,
      reconnectPeriod: 0,
    });
    const heartbeat = (oldestTs: number | null): Payload<"heartbeat"> => ({
      agent_id: "5f0c2d7e-3b1a-4c9e-8f00-0a1b2c3d4e5f",
      agent_version: "1.0.0",
      uptime_seconds: 100,
      devices: [],
      buffer: {
        batches: oldestTs === null ? 0 : 3,
        points: oldestTs === null ? 0 : 1200,
        oldest_ts: oldestTs,
        dropped_batches: 0,
      },
      config: { version: 1, hash: "h" },
    });
    try {
      await client.publishAsync(topics.heartbeat(projectId), JSON.stringify(heartbeat(null)), { qos: 1 });
      // The PUBACK comes before the heartbeat is stored: until it is, this project has no agent (a 404).
      await waitFor("the first heartbeat stored", async () => {
        const res = await p.t.request(`/api/edge/agents/${projectId}/health`, { token });
        return res.status === 404 ? undefined : res.status;
      });
      await healthIs("online", projectId);
      const sixMinutesAgo = p.t.clock.now().getTime() - 6 * 60_000;
      await client.publishAsync(topics.heartbeat(projectId), JSON.stringify(heartbeat(sixMinutesAgo)), {
        qos: 1,
      });
      const degraded = await healthIs("degraded", projectId);
      expect(degraded.reasons).toEqual(["backlog 6 min old (1200 points)"]);
      await client.publishAsync(topics.heartbeat(projectId), JSON.stringify(heartbeat(null)), { qos: 1 });
      await healthIs("online", projectId);
    } finally {
      // A clean DISCONNECT: no last will, no offline status. Only silence tells.
      await client.endAsync();
    }
    expect((await health(projectId)).status).toBe("online");
    p.t.clock.advance(44_000);
    expect((await health(projectId)).status).toBe("online");
    p.t.clock.advance(2_000);
    const offline = await health(projectId);
    expect(offline.status).toBe("offline");
    expect(offline.reasons).toEqual(["no heartbeat for 46 s"]);
    expect(offline.uptime_seconds).toBeGreaterThanOrEqual(146);
  });

  it("logs: POST stores an entry; GET filters by level (at or above) and limit, newest first", async () => {
    const projectId = await p.t.project();
    const levels = ["debug", "info", "warn", "error", "info", "warn"] as const;
    for (const [i, level] of levels.entries()) {
      const res = await p.t.request<LogEntry>("/api/edge/agents/logs", {
        token,
        body: {
          project_id: projectId,
          level,
          message: `entry ${i}`,
          ...(i === 0 ? { category: "modbus" } : {}),
        },
      });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        level,
        message: `entry ${i}`,
        category: i === 0 ? "modbus" : "agent",
      });
      expect(res.body.id).toMatch(/^[0-9a-f-]{36}$/);
      p.t.clock.advance(1); // distinct timestamps, so "newest first" is observable
    }
    const list = async (query: string) =>
      (
        await p.t.request<LogEntry[]>(`/api/edge/agents/logs?project_id=${projectId}${query}`, { token })
      ).body.map((e) => e.message);
    expect(await list("")).toEqual(["entry 5", "entry 4", "entry 3", "entry 2", "entry 1", "entry 0"]);
    expect(await list("&level=debug")).toHaveLength(6);
    expect(await list("&level=info")).toEqual(["entry 5", "entry 4", "entry 3", "entry 2", "entry 1"]);
    expect(await list("&level=warn")).toEqual(["entry 5", "entry 3", "entry 2"]);
    expect(await list("&level=error")).toEqual(["entry 3"]);
    expect(await list("&level=warn&limit=2")).toEqual(["entry 5", "entry 3"]);
    expect(await list("&limit=1")).toEqual(["entry 5"]);
  });

  it("logs: the default limit is 100", async () => {
    const projectId = await p.t.project();
    for (let i = 0; i < 101; i++) {
      const res = await p.t.request("/api/edge/agents/logs", {
        token,
        body: { project_id: projectId, level: "info", message: `line ${i}` },
      });
      expect(res.status).toBe(201);
    }
    const res = await p.t.request<LogEntry[]>(`/api/edge/agents/logs?project_id=${projectId}`, { token });
    expect(res.body).toHaveLength(100);
  });
});
