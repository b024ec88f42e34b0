import mqtt, { type MqttClient } from "mqtt";
import { decodePayload } from "sparkplug-payload/lib/sparkplugbpayload.js";
import { answer } from "../ipc.ts";

/*
 * The HMI side of `npm run bench -- sparkplug`, forked into its own process: an MQTT client logged
 * in with an HMI credential, subscribed to the project's Sparkplug group, decoding every payload
 * with sparkplug-payload as an HMI would. Latency of a current value: arrival here minus the
 * metric's timestamp (the time the agent stamped the reading, same machine clock).
 */

let client: MqttClient | undefined;
type Window = {
  messages: Record<string, number>;
  liveMetrics: number;
  latencies: number[];
  historical: number;
  lastHistoricalAt: number;
  startedAt: number;
};
const fresh = (): Window => ({
  messages: {},
  liveMetrics: 0,
  latencies: [],
  historical: 0,
  lastHistoricalAt: 0,
  startedAt: Date.now(),
});
let w = fresh();

const toNumber = (v: unknown): number =>
  typeof v === "number" ? v : typeof v === "object" && v !== null ? Number(v.toString()) : Number.NaN;

function percentile(sorted: number[], p: number): number {
  return (
    sorted[Math.max(0, Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN
  );
}

answer({
  connect: async (r) => {
    client = await mqtt.connectAsync(r.mqttUrl as string, {
      username: r.username as string,
      password: r.password as string,
      reconnectPeriod: 0,
    });
    client.on("message", (topic, payload) => {
      const arrived = Date.now();
      const type = topic.split("/")[2] ?? "?";
      w.messages[type] = (w.messages[type] ?? 0) + 1;
      if (type !== "DDATA") return;
      for (const m of decodePayload(payload).metrics ?? []) {
        if (m.isHistorical) {
          w.historical += 1;
          w.lastHistoricalAt = arrived;
        } else {
          w.liveMetrics += 1;
          w.latencies.push(arrived - toNumber(m.timestamp));
        }
      }
    });
    await client.subscribeAsync(`spBv1.0/${r.group as string}/#`, { qos: 0 });
    return {};
  },
  mark: () => {
    w = fresh();
    return {};
  },
  historical: () => ({ historical: w.historical }),
  report: () => {
    const sorted = w.latencies.sort((a, b) => a - b);
    return {
      seconds: (Date.now() - w.startedAt) / 1000,
      messages: w.messages,
      liveMetrics: w.liveMetrics,
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      max: sorted.at(-1) ?? Number.NaN,
      historical: w.historical,
      lastHistoricalMs: w.lastHistoricalAt === 0 ? null : w.lastHistoricalAt - w.startedAt,
    };
  },
});
