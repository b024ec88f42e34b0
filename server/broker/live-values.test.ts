import mqtt from "mqtt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Payload } from "../../shared/mqtt/topics.ts";
import { TestServer } from "../testing/harness.ts";

describe("HMI read path: caudal/v1/{project}/live/{asset}/{variable}", () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await TestServer.start();
  });
  afterAll(async () => t.stop());

  it("publishes the latest committed value per series, retained, to a read-only user", async () => {
    const admin = await t.admin();
    const project = await t.project();
    const asset = await t.asset(project);
    const operador = await t.userWithRole("operador", [project]);
    const base = Date.now() - 60_000;
    const ingest = (offsetMs: number, value: number) =>
      t.request("/api/telemetry", {
        token: admin.token,
        body: {
          asset_id: asset,
          timestamp: new Date(base + offsetMs).toISOString(),
          readings: [{ variable: "casing pressure", value, unit: "psi" }],
        },
      });
    // Newest first, then an older one: the older must not replace it.
    expect((await ingest(2_000, 812.5)).status).toBe(201);
    expect((await ingest(1_000, 700)).status).toBe(201);
    await new Promise((r) => setTimeout(r, 1_300));

    // Subscribing after the flush: the retained value is delivered at once.
    const client = await mqtt.connectAsync(`mqtt://127.0.0.1:${t.server.broker.port}`, {
      username: operador.email,
      password: operador.token,
      reconnectPeriod: 0,
    });
    try {
      const received = new Promise<{ topic: string; body: Payload<"live">; retain: boolean }>((resolve) => {
        client.on("message", (topic, payload, packet) =>
          resolve({ topic, body: JSON.parse(payload.toString()) as Payload<"live">, retain: packet.retain }),
        );
      });
      await client.subscribeAsync(`caudal/v1/${project}/live/#`, { qos: 0 });
      const msg = await received;
      expect(msg.topic).toBe(`caudal/v1/${project}/live/${asset}/casing%20pressure`);
      expect(msg.retain).toBe(true);
      expect(msg.body).toMatchObject({
        asset_id: asset,
        variable: "casing pressure",
        value: 812.5,
        unit: "psi",
      });
      // Read-only: a user's publish is refused, the retained value stays.
      await client
        .publishAsync(msg.topic, JSON.stringify({ ...msg.body, value: 0 }), { qos: 0 })
        .catch(() => {});
    } finally {
      await client.endAsync(true);
    }
  });
});
