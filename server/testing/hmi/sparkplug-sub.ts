import { decodePayload } from "sparkplug-payload/lib/sparkplugbpayload.js";
import type { Credentials } from "../../broker/mosquitto-clients.ts";
import { MosquittoSub } from "../../broker/mosquitto-clients.ts";
import { until } from "../broker-fixtures.ts";

/** A decoded Sparkplug metric, 64-bit values (Long) as numbers. */
export type Metric = {
  name?: string;
  alias?: number;
  type: string;
  value: unknown;
  timestamp?: number;
  isHistorical?: boolean;
  properties?: Record<string, { type: string; value: unknown }>;
};
export type SparkplugMessage = {
  topic: string;
  type: string;
  seq?: number;
  timestamp?: number;
  metrics: Metric[];
};

type LongLike = { toNumber(): number };
const isLong = (v: unknown): v is LongLike =>
  typeof v === "object" && v !== null && typeof (v as { toNumber?: unknown }).toNumber === "function";
/** sparkplug-payload returns uint64 fields, and UInt32/Int64/UInt64 values, as `Long`. */
const num = (v: unknown): unknown => (isLong(v) ? v.toNumber() : v);

/** Decodes one Sparkplug payload with sparkplug-payload (the Eclipse Tahu decoder). */
export function decodeSparkplug(topic: string, bytes: Uint8Array): SparkplugMessage {
  const p = decodePayload(bytes);
  const out: SparkplugMessage = { topic, type: topic.split("/")[2] ?? "", metrics: [] };
  if (p.seq != null) out.seq = num(p.seq) as number;
  if (p.timestamp != null) out.timestamp = num(p.timestamp) as number;
  for (const m of p.metrics ?? []) {
    const metric: Metric = { type: m.type, value: num(m.value) };
    if (m.name != null) metric.name = m.name;
    if (m.alias != null) metric.alias = num(m.alias) as number;
    if (m.timestamp != null) metric.timestamp = num(m.timestamp) as number;
    if (m.isHistorical != null) metric.isHistorical = m.isHistorical;
    if (m.properties) {
      metric.properties = Object.fromEntries(
        Object.entries(m.properties).map(([k, v]) => [k, { type: v.type, value: num(v.value) }]),
      );
    }
    out.metrics.push(metric);
  }
  return out;
}

/**
 * Debian's mosquitto_sub logged in with an HMI credential, printing each message's topic and its
 * payload in hex (-F "%t %x"), decoded here with sparkplug-payload.
 */
export class SparkplugSub {
  readonly #sub: MosquittoSub;
  readonly #group: string;

  private constructor(sub: MosquittoSub, group: string) {
    this.#sub = sub;
    this.#group = group;
  }

  static async start(port: number, c: Credentials, group: string): Promise<SparkplugSub> {
    const sub = new MosquittoSub(port, c, [`spBv1.0/${group}/#`], "%t %x");
    await until("the SUBACK", () => sub.subacks.length > 0 || sub.exited);
    if (sub.exited) throw new Error(`mosquitto_sub exited: ${sub.stderr}`);
    return new SparkplugSub(sub, group);
  }

  get raw(): MosquittoSub {
    return this.#sub;
  }

  /** Every message so far, decoded, in arrival order (NCMDs included). */
  get messages(): SparkplugMessage[] {
    return this.#sub.messages
      .filter((l) => l.startsWith(`spBv1.0/${this.#group}/`))
      .map((line) => {
        const space = line.indexOf(" ");
        return decodeSparkplug(line.slice(0, space), Buffer.from(line.slice(space + 1), "hex"));
      });
  }

  /** Messages after the first `skip`, once `check` holds for them. */
  async after(
    skip: number,
    what: string,
    check: (ms: SparkplugMessage[]) => boolean,
    timeoutMs = 8_000,
  ): Promise<SparkplugMessage[]> {
    await until(what, () => check(this.messages.slice(skip)), timeoutMs);
    return this.messages.slice(skip);
  }

  close(): Promise<void> {
    return this.#sub.close();
  }
}

/** A metric of a birth by name. */
export function metricNamed(m: SparkplugMessage | undefined, name: string): Metric | undefined {
  return m?.metrics.find((x) => x.name === name);
}
