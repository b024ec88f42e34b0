import { randomUUID } from "node:crypto";
import mqtt from "mqtt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { topics } from "../../../shared/mqtt/topics.ts";
import { TestServer } from "../../testing/harness.ts";
import { agentHealthReportSchema } from "./health-report.ts";

/** A heartbeat published over real MQTT comes back on GET /api/edge/projects/{id} with its declared schema. */
describe("last_health_report", () => {
  let t: TestServer;
  let token: string;
  beforeAll(async () => {
    t = await TestServer.start();
    token = (await t.admin()).token;
  });
  afterAll(async () => t.stop());

  it("is the agent's latest heartbeat without agent_id, plus received_at", async () => {
    const projectId = await t.project();
    const issued = await t.request<{ agent_token: string; mqtt_username: string }>(
      `/api/edge/projects/${projectId}/agent-token`,
      { method: "POST", token },
    );
    expect(issued.status).toBe(201);
    const heartbeat = {
      agent_id: randomUUID(),
      agent_version: "1.2.3",
      uptime_seconds: 42,
      devices: [
        { device_id: randomUUID(), name: "PLC-1", state: "ok", last_error: null, last_read_at: null },
      ],
      buffer: { batches: 1, points: 10, oldest_ts: 1_700_000_000_000, dropped_batches: 0 },
      config: { version: 3, hash: "abc" },
    };
    const client = await mqtt.connectAsync(`mqtt://127.0.0.1:${t.server.broker.port}`, {
      username: issued.body.mqtt_username,
      password: issued.body.agent_token,
      reconnectPeriod: 0,
    });
    try {
      await client.publishAsync(topics.heartbeat(projectId), JSON.stringify(heartbeat), { qos: 1 });
    } finally {
      await client.endAsync();
    }
    let report: unknown = null;
    for (let i = 0; i < 100 && report === null; i++) {
      const res = await t.request<{ last_health_report: unknown }>(`/api/edge/projects/${projectId}`, {
        token,
      });
      report = res.body.last_health_report;
      if (report === null) await new Promise((r) => setTimeout(r, 20));
    }
    const { agent_id: _agentId, ...kept } = heartbeat;
    expect(report).toEqual({ ...kept, received_at: expect.any(String) });
    expect(agentHealthReportSchema.safeParse(report).success).toBe(true);
  });
});
