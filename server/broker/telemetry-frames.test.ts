import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeTelemetryFrame } from "../../shared/mqtt/telemetry-frame.ts";
import { type Payload, topics } from "../../shared/mqtt/topics.ts";
import { agentProject, connectMqtt, until } from "../testing/broker-fixtures.ts";
import { TestServer } from "../testing/harness.ts";
import { tableProbe } from "../testing/table-probe.ts";

/* An agent's binary batches (shared/mqtt/telemetry-frame.ts) over real MQTT connections. */
describe("binary batches on agent/telemetry", () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await TestServer.start();
  });
  afterAll(async () => t.stop());

  it("stores a frame once, says in every ack that frames are taken, and people read it as JSON", async () => {
    const { id: project, asset, agent: credentials } = await agentProject(t);
    const operador = await t.userWithRole("operador", [project]);
    const port = t.server.broker.port;
    const agent = await connectMqtt(port, credentials);
    const person = await connectMqtt(port, { username: operador.email, password: operador.token });
    try {
      const acks: Payload<"ack">[] = [];
      agent.on("message", (_topic, payload) => acks.push(JSON.parse(payload.toString()) as Payload<"ack">));
      await agent.subscribeAsync(topics.ack(project), { qos: 1 });
      const seen: Buffer[] = [];
      person.on("message", (_topic, payload) => seen.push(payload));
      await person.subscribeAsync(topics.telemetry(project), { qos: 0 });

      const agentId = randomUUID();
      const ts = Date.now() - 5_000;
      const series: Payload<"telemetry">["series"][number] = {
        asset_id: asset,
        variable: "caudal de gas",
        unit: "m³/d",
        points: [
          [ts, 1.5],
          [ts + 1_000, 2.5],
        ],
      };
      const batch: Payload<"telemetry"> = {
        agent_id: agentId,
        seq: 1,
        lane: "live",
        series: [series],
        alarms: [],
      };
      const frame = encodeTelemetryFrame(batch);
      await agent.publishAsync(topics.telemetry(project), frame, { qos: 1 });
      await until("the ack and the forwarded batch", () => acks.length === 1 && seen.length === 1);
      expect(acks[0]).toEqual({ agent_id: agentId, seq: 1, accepted: 2, duplicate: false, binary: true });
      expect(JSON.parse(seen[0]?.toString() ?? "")).toEqual(batch);

      // Sent again (its ack lost): a duplicate, stored once.
      await agent.publishAsync(topics.telemetry(project), frame, { qos: 1 });
      await until("the second ack", () => acks.length === 2);
      expect(acks[1]).toMatchObject({ seq: 1, accepted: 0, duplicate: true });
      const stored = await tableProbe(t.server).query<{ n: number }>(
        `SELECT count(*) AS n FROM (SELECT series_id FROM telemetry_raw UNION ALL SELECT series_id FROM telemetry_inbox) r
         JOIN telemetry_series s ON s.id = r.series_id WHERE s.asset_id = ?`,
        [asset],
      );
      expect(stored[0]?.n).toBe(2);

      // A frame the schema refuses is acknowledged with the reason, so the agent does not resend
      // it forever, and reaches no one.
      const refused = encodeTelemetryFrame({
        ...batch,
        seq: 2,
        series: [{ ...series, points: [[ts, 2e15]] }],
      });
      await agent.publishAsync(topics.telemetry(project), refused, { qos: 1 });
      await until("the refusal", () => acks.length === 3);
      expect(acks[2]).toEqual({
        agent_id: agentId,
        seq: 2,
        accepted: 0,
        duplicate: false,
        error: "binary batch: series 0, point 0: value must be finite, at most 1e15 in magnitude",
        binary: true,
      });
      // The JSON of the same batch is taken as before, and its ack says frames are taken too.
      await agent.publishAsync(topics.telemetry(project), JSON.stringify({ ...batch, seq: 3 }), { qos: 1 });
      await until("the JSON batch's ack", () => acks.length === 4);
      expect(acks[3]).toMatchObject({ seq: 3, accepted: 0, duplicate: false, binary: true });
      // People got every batch the schema took (the duplicate too), as JSON; the refused one, never.
      expect(seen.map((p) => (JSON.parse(p.toString()) as Payload<"telemetry">).seq)).toEqual([1, 1, 3]);
    } finally {
      await agent.endAsync(true);
      await person.endAsync(true);
    }
  });
});
