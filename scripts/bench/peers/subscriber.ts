import mqtt from "mqtt";
import { decodeTelemetryFrame, isTelemetryFrame } from "../../../shared/mqtt/telemetry-frame.ts";
import { topics } from "../../../shared/mqtt/topics.ts";
import { answer } from "../ipc.ts";
import { asRequest } from "../sync/ipc-request.ts";
import { variableName } from "./sensor-walk.ts";
import { type CheckResult, SeriesLog, type SeriesSpec, StoredCheck, sumChecks } from "./series-log.ts";

/*
 * The one QoS 1 subscriber of the mqtt workload on Mosquitto, in its own process: Mosquitto stores
 * nothing, so what it delivers here is what it relayed. Each delivered point is checked, as it
 * arrives, against what its publisher sent (the same SensorWalk, regenerated here).
 */

export type SubscribeRequest = { type: "subscribe"; url: string };
/** The publishers of the next run: counting and checking start afresh; other agents' messages are ignored. */
export type ExpectRequest = { type: "expect"; lanes: { agentId: string; spec: SeriesSpec }[] };
export type CollectRequest = {
  type: "collect";
  /** Messages each agent published (and Mosquitto acknowledged). */
  published: Record<string, number>;
  /** Give up this long after the last delivery. */
  quietMs: number;
};
export type CollectReport = {
  delivered: number;
  firstAtMs: number;
  lastAtMs: number;
  check: CheckResult;
};

type Lane = { log: SeriesLog; check: StoredCheck };
type Message = { agent_id: string; seq: number; series: { variable: string; points: [number, number][] }[] };

const lanes = new Map<string, Lane>();
const names = new Map(Array.from({ length: 1000 }, (_, v) => [variableName(v), v]));
let delivered = 0;
let firstAtMs = 0;
let lastAtMs = 0;

/** Generates (and counts as acknowledged) the lane's messages up to `seq`. */
function sentUpTo(lane: Lane, seq: number): void {
  while (lane.log.blocks < seq) lane.log.ack(lane.log.nextBlock().index);
}

function onMessage(raw: Buffer): void {
  const message = isTelemetryFrame(raw) ? frameMessage(raw) : (JSON.parse(raw.toString("utf8")) as Message);
  if (!message) return;
  const lane = lanes.get(message.agent_id);
  if (!lane) return;
  lastAtMs = performance.timeOrigin + performance.now();
  if (delivered === 0) firstAtMs = lastAtMs;
  delivered++;
  sentUpTo(lane, message.seq);
  for (const s of message.series) {
    const variable = names.get(s.variable) ?? -1;
    for (const [ts, value] of s.points) lane.check.row(ts, variable, value);
  }
}

/** A binary batch as the message it carries; undefined (not counted) when it is refused. */
function frameMessage(raw: Buffer): Message | undefined {
  const frame = decodeTelemetryFrame(raw);
  return frame.ok ? frame.batch : undefined;
}

answer({
  subscribe: async (message) => {
    const request = asRequest<SubscribeRequest>(message);
    const c = mqtt.connect(request.url, {
      clientId: `bench-peers-sub-${process.pid}`,
      clean: true,
      reconnectPeriod: 0,
    });
    await new Promise<void>((resolve, reject) => {
      c.once("connect", () =>
        c.subscribe(topics.telemetry("+"), { qos: 1 }, (err) => (err ? reject(err) : resolve())),
      );
      c.once("error", reject);
    });
    c.on("message", (_topic, raw) => onMessage(raw));
    return {};
  },
  expect: (message) => {
    lanes.clear();
    delivered = 0;
    firstAtMs = 0;
    lastAtMs = 0;
    for (const lane of asRequest<ExpectRequest>(message).lanes) {
      const log = new SeriesLog(lane.spec);
      lanes.set(lane.agentId, { log, check: new StoredCheck(log) });
    }
    return {};
  },
  collect: async (message): Promise<CollectReport> => {
    const { published, quietMs } = asRequest<CollectRequest>(message);
    const expected = Object.values(published).reduce((a, b) => a + b, 0);
    const waitFrom = performance.timeOrigin + performance.now();
    const quiet = () => performance.timeOrigin + performance.now() - Math.max(lastAtMs, waitFrom) >= quietMs;
    while (delivered < expected && !quiet()) await new Promise((r) => setTimeout(r, 20));
    for (const [agentId, lane] of lanes) sentUpTo(lane, published[agentId] ?? 0);
    return {
      delivered,
      firstAtMs,
      lastAtMs,
      check: sumChecks([...lanes.values()].map((l) => l.check.result())),
    };
  },
});
