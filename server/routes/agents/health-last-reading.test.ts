import { randomUUID } from "node:crypto";
import mqtt from "mqtt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { topics } from "../../../shared/mqtt/topics.ts";
import { createAsset, createDevice, createVariable } from "../../testing/fixtures/report-fixtures.ts";
import { TestServer } from "../../testing/harness.ts";

type Health = {
  devices: { device_id: string; last_read_at?: string | null; last_reading_at: string | null }[];
};

/*
 * A device polled every second was shown "last read 14 s ago": the time came from the agent's
 * heartbeat (every 15 s). GET /api/edge/agents/{id}/health gives each device the newest reading
 * the server holds of its variables.
 */
describe("GET /api/edge/agents/{project_id}/health: each device's newest reading", () => {
  let t: TestServer;
  let token: string;
  beforeAll(async () => {
    t = await TestServer.start();
    token = (await t.admin()).token;
  });
  afterAll(async () => t.stop());

  it("is the newest reading the server holds of the device's variables, not the heartbeat's time", async () => {
    const projectId = await t.project();
    const well = await createAsset(t, projectId, "Well 1");
    const polled = await createDevice(t, well);
    await createVariable(t, polled, "pressure", 1000, "psi");
    await createVariable(t, polled, "temperature", 1000, "degC");
    const quiet = await createDevice(t, well);
    await createVariable(t, quiet, "level", 1000, "ft");
    const issued = await t.request<{ agent_token: string; mqtt_username: string }>(
      `/api/edge/projects/${projectId}/agent-token`,
      { method: "POST", token },
    );
    expect(issued.status).toBe(201);

    const now = t.clock.now().getTime();
    const heartbeatRead = new Date(now - 14_000).toISOString();
    const client = await mqtt.connectAsync(`mqtt://127.0.0.1:${t.server.broker.port}`, {
      username: issued.body.mqtt_username,
      password: issued.body.agent_token,
      reconnectPeriod: 0,
    });
    try {
      const heartbeat = {
        agent_id: randomUUID(),
        agent_version: "1.2.3",
        uptime_seconds: 60,
        devices: [
          { device_id: polled, name: "PLC-1", state: "ok", last_error: null, last_read_at: heartbeatRead },
          { device_id: quiet, name: "PLC-2", state: "ok", last_error: null, last_read_at: heartbeatRead },
        ],
        buffer: { batches: 0, points: 0, oldest_ts: null, dropped_batches: 0 },
        config: { version: null, hash: null },
      };
      await client.publishAsync(topics.heartbeat(projectId), JSON.stringify(heartbeat), { qos: 1 });
    } finally {
      await client.endAsync();
    }
    const items = [
      { ts: now - 3_000, readings: [{ variable: "pressure", value: 800 }] },
      { ts: now - 1_000, readings: [{ variable: "temperature", value: 61 }] },
      // Another asset's series of the same name is not this device's.
      { ts: now - 2_000, readings: [{ variable: "pressure", value: 801 }] },
    ];
    const other = await createAsset(t, projectId, "Well 2");
    const upload = await t.request("/api/telemetry/batch", {
      token,
      body: {
        items: items.map((i, n) => ({
          asset_id: n === 2 ? other : well,
          timestamp: new Date(i.ts).toISOString(),
          readings: i.readings,
        })),
      },
    });
    expect(upload.status, upload.text).toBe(201);

    let health: Health | null = null;
    for (let i = 0; i < 100 && !health?.devices.length; i++) {
      const res = await t.request<Health>(`/api/edge/agents/${projectId}/health`, { token });
      if (res.status === 200) health = res.body;
      else await new Promise((r) => setTimeout(r, 20));
    }
    const byId = new Map(health?.devices.map((d) => [d.device_id, d]));
    expect(byId.get(polled)).toMatchObject({
      last_read_at: heartbeatRead,
      last_reading_at: new Date(now - 1_000).toISOString(),
    });
    expect(byId.get(quiet)).toMatchObject({ last_read_at: heartbeatRead, last_reading_at: null });
  });

  it("is declared in the OpenAPI document", async () => {
    const doc = await t.request<{ components: { schemas: Record<string, unknown> } }>("/docs/openapi.json");
    expect(JSON.stringify(doc.body.components.schemas.AgentHealth)).toContain("last_reading_at");
  });
});
