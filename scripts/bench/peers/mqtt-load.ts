import mqtt, { type MqttClient } from "mqtt";
import { payloads, topics } from "../../../shared/mqtt/topics.ts";
import { percentile } from "../sync/measure.ts";
import type { SeriesLog, SeriesSpec } from "./series-log.ts";
import { agentFrames, agentMessage } from "./wire-formats.ts";

/** One publisher: an agent of its own project, sending one asset's readings. */
export type MqttLane = { agentId: string; projectId: string; agentToken: string | null; spec: SeriesSpec };

export type MqttLoadRequest = {
  type: "mqtt";
  /** caudal: a message counts once the server's application ack (sent after the commit) arrives; mosquitto: on PUBACK. */
  target: "caudal" | "mosquitto";
  url: string;
  lanes: MqttLane[];
  window: number;
  durationS: number;
};

export type MqttLoadReport = {
  published: number;
  /** Messages published per agent id. */
  perLane: Record<string, number>;
  /** Still waiting for an answer when the run gave up (30 s without any). */
  unanswered: number;
  acknowledged: number;
  acknowledgedPoints: number;
  errorAcks: number;
  firstError: string | null;
  /** performance.timeOrigin + the first publish, epoch ms: the start of the subscriber's window too. */
  startedAtMs: number;
  elapsedMs: number;
  p50Ms: number;
  p99Ms: number;
};

const STALL_MS = 30_000;

function connect(url: string, lane: MqttLane, caudal: boolean): Promise<MqttClient> {
  return new Promise((resolve, reject) => {
    const client = mqtt.connect(url, {
      clientId: `bench-peers-${lane.agentId.slice(0, 8)}-${process.pid}`,
      ...(lane.agentToken ? { username: `agent:${lane.projectId}`, password: lane.agentToken } : {}),
      clean: true,
      reconnectPeriod: 0,
      keepalive: 60,
    });
    client.once("connect", () => {
      if (!caudal) return resolve(client);
      client.subscribe(topics.ack(lane.projectId), { qos: 1 }, (err) =>
        err ? reject(err) : resolve(client),
      );
    });
    client.once("error", reject);
  });
}

/**
 * `lanes` publishers, QoS 1, each keeping `window` messages unanswered: a message is answered by
 * Caudal's application ack (as an agent's live lane waits for it) or by Mosquitto's PUBACK (all a
 * plain broker gives a publisher). Each message is the lane's next block: one second of every
 * variable. Publishing stops after `durationS`; the run ends when every message is answered.
 */
export async function mqttLoad(r: MqttLoadRequest, logs: SeriesLog[]): Promise<MqttLoadReport> {
  const caudal = r.target === "caudal";
  const clients = await Promise.all(r.lanes.map((lane) => connect(r.url, lane, caudal)));
  const latencies: number[] = [];
  let published = 0;
  let acknowledged = 0;
  let acknowledgedPoints = 0;
  let errorAcks = 0;
  let firstError: string | null = null;
  let open = 0;
  const started = performance.now();
  let lastAck = started;
  const deadline = started + r.durationS * 1000;

  // A message never answered must not hang the bench: after 30 s without any answer it counts as unanswered.
  let stalled: NodeJS.Timeout | undefined;
  await new Promise<void>((resolve, reject) => {
    stalled = setInterval(() => {
      if (performance.now() - lastAck > STALL_MS) resolve();
    }, 1000);
    const answered = (
      log: SeriesLog,
      index: number,
      sentAt: number,
      error: string | null,
      next: () => void,
    ) => {
      open--;
      lastAck = performance.now();
      latencies.push(lastAck - sentAt);
      if (error) {
        errorAcks++;
        firstError ??= error;
      } else {
        acknowledged++;
        acknowledgedPoints += log.spec.variables * log.spec.blockSeconds;
        log.ack(index);
      }
      if (lastAck < deadline) next();
      else if (open === 0) resolve();
    };
    for (const [i, lane] of r.lanes.entries()) {
      const client = clients[i];
      const log = logs[i];
      if (!client || !log) {
        reject(new Error("lane without a client or log"));
        return;
      }
      const sentAt = new Map<number, { index: number; at: number }>();
      // As an agent: JSON until an ack says the server takes binary frames (telemetry-frame.ts).
      // Mosquitto relays the bytes such an agent sends: frames from the start.
      let binary = !caudal;
      const frame = agentFrames(lane.agentId, lane.spec.assetId, lane.spec.variables);
      const send = () => {
        const block = log.nextBlock();
        const seq = block.index + 1;
        const body = binary
          ? frame(seq, block)
          : agentMessage(lane.agentId, seq, lane.spec.assetId, lane.spec.variables, block);
        const at = performance.now();
        published++;
        open++;
        if (caudal) {
          sentAt.set(seq, { index: block.index, at });
          client.publish(topics.telemetry(lane.projectId), body, { qos: 1 });
        } else {
          client.publish(topics.telemetry(lane.projectId), body, { qos: 1 }, (err) =>
            answered(log, block.index, at, err ? err.message : null, send),
          );
        }
      };
      if (caudal) {
        client.on("message", (_topic, raw) => {
          const ack = payloads.ack.parse(JSON.parse(raw.toString("utf8")));
          if (ack.binary) binary = true;
          const sent = ack.agent_id === lane.agentId ? sentAt.get(ack.seq) : undefined;
          if (!sent) return;
          sentAt.delete(ack.seq);
          const points = lane.spec.variables * lane.spec.blockSeconds;
          const error =
            ack.error ??
            (ack.duplicate
              ? "acknowledged as a duplicate"
              : ack.accepted !== points
                ? `accepted ${ack.accepted} of ${points} points`
                : null);
          answered(log, sent.index, sent.at, error, send);
        });
      }
      for (let w = 0; w < r.window; w++) send();
    }
  });
  clearInterval(stalled);
  await Promise.all(clients.map((c) => c.endAsync(open > 0)));
  return {
    published,
    perLane: Object.fromEntries(r.lanes.map((lane, i) => [lane.agentId, logs[i]?.blocks ?? 0])),
    unanswered: open,
    acknowledged,
    acknowledgedPoints,
    errorAcks,
    firstError,
    startedAtMs: performance.timeOrigin + started,
    elapsedMs: lastAck - started,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
  };
}
