import { randomUUID } from "node:crypto";
import mqtt, { type MqttClient } from "mqtt";
import { type Payload, payloads, topics } from "../../../shared/mqtt/topics.ts";
import { answer } from "../ipc.ts";

/*
 * The agent side of `npm run bench -- sparkplug`, forked into its own process: one MQTT
 * connection as the project's agent (shared/mqtt/topics.ts), which publishes `online`, then
 * live batches (every metric once a second, a tenth of the devices every 100 ms, stamped when
 * sent) with up to 8 waiting for the server's ack, as the agent's live lane does; and on request a
 * backlog (lane backlog, 5,000 points a batch, one at a time, as the agent drains its outbox).
 */

type Device = { assetId: string; variables: string[] };
type Series = Payload<"telemetry">["series"][number];

const LIVE_WINDOW = 8;
const BACKLOG_BATCH_POINTS = 5_000;
const agentId = randomUUID();
let client: MqttClient | undefined;
let projectId = "";
let seq = 0;
const acks = new Map<number, () => void>();
let live: NodeJS.Timeout | undefined;
let liveInFlight = 0;
let liveSkipped = 0;
/** Live batches' round trips (publish → the server's ack, sent after the commit), ms. */
let liveAckMs: number[] = [];

function percentile(sorted: number[], p: number): number {
  return (
    sorted[Math.max(0, Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN
  );
}

function send(series: Series[], lane: "live" | "backlog"): Promise<void> {
  const c = client;
  if (!c) throw new Error("not connected");
  seq += 1;
  const batch: Payload<"telemetry"> = { agent_id: agentId, seq, lane, series, alarms: [] };
  const acked = new Promise<void>((resolve) => acks.set(seq, resolve));
  c.publish(topics.telemetry(projectId), JSON.stringify(batch), { qos: 1 });
  return acked;
}

answer({
  connect: async (r) => {
    projectId = r.projectId as string;
    client = await mqtt.connectAsync(r.mqttUrl as string, {
      username: `agent:${projectId}`,
      password: r.agentToken as string,
      reconnectPeriod: 0,
      writeCache: false,
    });
    client.on("message", (_topic, raw) => {
      const ack = payloads.ack.parse(JSON.parse(raw.toString("utf8")));
      const done = acks.get(ack.seq);
      acks.delete(ack.seq);
      done?.();
    });
    await client.subscribeAsync(topics.ack(projectId), { qos: 1 });
    await client.publishAsync(
      topics.status(projectId),
      JSON.stringify({ status: "online", agent_id: agentId, at: new Date().toISOString() }),
      { qos: 1, retain: true },
    );
    return {};
  },
  startLive: (r) => {
    const devices = r.devices as Device[];
    let slice = 0;
    live = setInterval(() => {
      const part = devices.filter((_, i) => i % 10 === slice);
      slice = (slice + 1) % 10;
      if (liveInFlight >= LIVE_WINDOW) {
        liveSkipped += 1;
        return;
      }
      const now = Date.now();
      const series = part.flatMap((d) =>
        d.variables.map((variable) => ({
          asset_id: d.assetId,
          variable,
          points: [[now, Math.random() * 1000]],
        })),
      ) as Series[];
      liveInFlight += 1;
      void send(series, "live").then(() => {
        liveInFlight -= 1;
        liveAckMs.push(Date.now() - now);
      });
    }, 100);
    return {};
  },
  /** p50/p99 of the live acks since the last call. */
  acks: () => {
    const sorted = liveAckMs.sort((a, b) => a - b);
    liveAckMs = [];
    return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
  },
  stopLive: () => {
    clearInterval(live);
    const skipped = liveSkipped;
    liveSkipped = 0;
    return { skipped };
  },
  /** `points` old points spread over every metric (100 per metric for 10,000), oldest first. */
  backlog: async (r) => {
    const devices = r.devices as Device[];
    const total = r.points as number;
    const startTs = r.startTs as number;
    const metrics = devices.flatMap((d) => d.variables.map((variable) => ({ assetId: d.assetId, variable })));
    const perMetric = Math.max(1, Math.floor(total / metrics.length));
    const perSeries = Math.max(1, Math.min(perMetric, BACKLOG_BATCH_POINTS));
    const started = performance.now();
    let sent = 0;
    // Oldest first: one run of `perSeries` points of each metric in turn, then the next run.
    for (let from = 0; from < perMetric; from += perSeries) {
      const n = Math.min(perSeries, perMetric - from);
      let batch: Series[] = [];
      let points = 0;
      for (const m of metrics) {
        const run: [number, number][] = [];
        for (let k = 0; k < n; k++) run.push([startTs + (from + k) * 1_000, from + k]);
        batch.push({ asset_id: m.assetId, variable: m.variable, points: run });
        points += n;
        if (points >= BACKLOG_BATCH_POINTS) {
          await send(batch, "backlog");
          sent += points;
          batch = [];
          points = 0;
        }
      }
      if (batch.length > 0) {
        await send(batch, "backlog");
        sent += points;
      }
    }
    return { points: sent, ms: performance.now() - started };
  },
});
