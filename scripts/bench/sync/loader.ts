import { randomUUID } from "node:crypto";
import mqtt, { type MqttClient } from "mqtt";
import { type Payload, payloads, topics } from "../../../shared/mqtt/topics.ts";
import { answer } from "../ipc.ts";
import { mergedBatch } from "./batch-shape.ts";
import type { BenchProject } from "./fixtures.ts";
import { asRequest } from "./ipc-request.ts";

/*
 * The load side of `npm run bench -- sync` phase "ingest", forked into its own process. One MQTT
 * connection per project plays that project's agent: it publishes agent-shaped telemetry batches
 * (shared/mqtt/topics.ts payloads.telemetry, the merged shape of an agent's outbox: every series of
 * the site with a run of consecutive 1 Hz points) with QoS 1, keeps `window` batches waiting for the
 * server's application ack, and sends the next one as each ack arrives, as the agent's live lane does.
 */

export type IngestRequest = {
  type: "ingest";
  mqttUrl: string;
  projects: BenchProject[];
  variables: number;
  batchPoints: number;
  window: number;
  durationS: number;
  /** First timestamp (epoch ms); each batch moves every series on by `batchPoints / series` seconds. */
  startTs: number;
};

export type IngestReport = {
  type: "ingest:ok";
  batches: number;
  sentPoints: number;
  acceptedPoints: number;
  duplicateAcks: number;
  errorAcks: number;
  firstError: string | null;
  elapsedMs: number;
  ackMs: number[];
};

type Lane = {
  client: MqttClient;
  projectId: string;
  agentId: string;
  assets: string[];
  seq: number;
  ts: number;
  sentAt: Map<number, number>;
};

function connect(url: string, project: BenchProject, clientId: string): Promise<MqttClient> {
  return new Promise((resolve, reject) => {
    const client = mqtt.connect(url, {
      clientId,
      username: `agent:${project.id}`,
      password: project.agentToken,
      clean: true,
      reconnectPeriod: 0,
      keepalive: 60,
    });
    client.once("connect", () => {
      client.subscribe(topics.ack(project.id), { qos: 1 }, (err) => (err ? reject(err) : resolve(client)));
    });
    client.once("error", reject);
  });
}

function batchOf(lane: Lane, variables: number, pointsPerSeries: number): Payload<"telemetry"> {
  const body = mergedBatch(lane.assets, variables, lane.ts, pointsPerSeries);
  lane.ts += pointsPerSeries * 1000;
  lane.seq += 1;
  return { agent_id: lane.agentId, seq: lane.seq, lane: "live", ...body };
}

async function ingest(r: IngestRequest): Promise<Omit<IngestReport, "type">> {
  const lanes: Lane[] = [];
  for (const [i, project] of r.projects.entries()) {
    const client = await connect(r.mqttUrl, project, `bench-loader-${i}-${process.pid}`);
    lanes.push({
      client,
      projectId: project.id,
      agentId: randomUUID(),
      assets: project.assets,
      seq: 0,
      ts: r.startTs,
      sentAt: new Map(),
    });
  }
  const perSeries = (lane: Lane) =>
    Math.max(1, Math.floor(r.batchPoints / (lane.assets.length * r.variables)));
  let sentPoints = 0;
  let acceptedPoints = 0;
  let batches = 0;
  let duplicateAcks = 0;
  let errorAcks = 0;
  let firstError: string | null = null;
  const ackMs: number[] = [];
  const started = performance.now();
  const deadline = started + r.durationS * 1000;
  let lastAck = started;

  await new Promise<void>((resolve) => {
    const send = (lane: Lane) => {
      const batch = batchOf(lane, r.variables, perSeries(lane));
      for (const s of batch.series) sentPoints += s.points.length;
      batches += 1;
      lane.sentAt.set(batch.seq, performance.now());
      lane.client.publish(topics.telemetry(lane.projectId), JSON.stringify(batch), { qos: 1 });
    };
    const done = () => lanes.every((l) => l.sentAt.size === 0) && performance.now() >= deadline;
    for (const lane of lanes) {
      lane.client.on("message", (_topic, raw) => {
        const ack = payloads.ack.parse(JSON.parse(raw.toString("utf8")));
        if (ack.agent_id !== lane.agentId) return;
        const sentAt = lane.sentAt.get(ack.seq);
        if (sentAt === undefined) return;
        lane.sentAt.delete(ack.seq);
        lastAck = performance.now();
        ackMs.push(lastAck - sentAt);
        acceptedPoints += ack.accepted;
        if (ack.duplicate) duplicateAcks += 1;
        if (ack.error) {
          errorAcks += 1;
          firstError ??= ack.error;
        }
        if (lastAck < deadline) send(lane);
        else if (done()) resolve();
      });
      for (let w = 0; w < r.window; w++) send(lane);
    }
  });
  const elapsedMs = lastAck - started;
  await Promise.all(lanes.map((l) => l.client.endAsync()));
  return {
    batches,
    sentPoints,
    acceptedPoints,
    duplicateAcks,
    errorAcks,
    firstError,
    elapsedMs,
    ackMs,
  };
}

answer({ ingest: (request) => ingest(asRequest<IngestRequest>(request)) });
