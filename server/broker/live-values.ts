import { type Payload, topics } from "../../shared/mqtt/topics.ts";
import type { TelemetryEvent } from "../services/events.ts";

type Publish = (topic: string, payload: Payload<"live">) => Promise<void>;

/** At most this many series are held between flushes; beyond it, the oldest pending are published early. */
const MAX_PENDING = 100_000;

/**
 * Republishes committed telemetry for HMIs: the latest value of each series, retained, on
 * caudal/v1/{project}/live/{asset}/{variable}. Values are coalesced per series and flushed once
 * per interval, so a burst of ingest (or an agent's backlog) costs one message per series, not
 * one per reading; an older reading never replaces a newer one.
 */
export class LiveValues {
  readonly #publish: Publish;
  readonly #intervalMs: number;
  readonly #pending = new Map<string, { topic: string; payload: Payload<"live">; ts: number }>();
  readonly #lastTs = new Map<string, number>();
  #timer: NodeJS.Timeout | undefined;

  constructor(publish: Publish, intervalMs = 1_000) {
    this.#publish = publish;
    this.#intervalMs = intervalMs;
  }

  start(): void {
    this.#timer = setInterval(() => this.flush(), this.#intervalMs);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    this.#pending.clear();
  }

  observe = (event: TelemetryEvent): void => {
    const ts = Date.parse(event.timestamp);
    for (const r of event.readings) {
      const topic = topics.live(event.projectId, event.assetId, r.variable);
      if ((this.#lastTs.get(topic) ?? Number.NEGATIVE_INFINITY) > ts) continue;
      this.#lastTs.set(topic, ts);
      this.#pending.set(topic, {
        topic,
        ts,
        payload: {
          asset_id: event.assetId,
          variable: r.variable,
          value: r.value,
          unit: r.unit ?? null,
          timestamp: event.timestamp,
        },
      });
    }
    if (this.#pending.size > MAX_PENDING) this.flush();
  };

  flush(): void {
    const due = [...this.#pending.values()];
    this.#pending.clear();
    for (const d of due) void this.#publish(d.topic, d.payload).catch(() => {});
  }
}
