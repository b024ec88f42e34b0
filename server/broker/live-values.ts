import { type Payload, topics } from "../../shared/mqtt/topics.ts";
import type { TelemetryEvent } from "../services/events.ts";

type Publish = (topic: string, payload: Payload<"live">) => Promise<void>;

type Latest = { ts: number; value: number; unit: string | null; dirty: boolean };

/** Series held between flushes before a flush is forced. */
const MAX_DIRTY = 100_000;

/**
 * Republishes committed telemetry for HMIs: the latest value of each series, retained, on
 * caudal/v1/{project}/live/{asset}/{variable}. Values are coalesced per series and flushed once
 * per interval, so a burst of ingest (or an agent's backlog) costs one message per series, not one
 * per reading; an older reading never replaces a newer one. observe() runs on the ingest hot path:
 * it does two map lookups per series of a batch and builds no strings (topics and timestamps are
 * built at flush).
 */
export class LiveValues {
  readonly #publish: Publish;
  readonly #intervalMs: number;
  /** asset → variable → latest value. */
  readonly #series = new Map<string, { projectId: string; variables: Map<string, Latest> }>();
  #dirty = 0;
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
    this.#series.clear();
    this.#dirty = 0;
  }

  observe = (event: TelemetryEvent): void => {
    for (const s of event.series) {
      let asset = this.#series.get(s.assetId);
      if (!asset) {
        asset = { projectId: s.projectId, variables: new Map() };
        this.#series.set(s.assetId, asset);
      }
      // The newest point (the last of equal timestamps): a backlog's thousands of points a series
      // cost one comparison each.
      const points = s.points;
      let newest = points[0];
      for (let i = 1; i < points.length; i++) {
        const p = points[i];
        if (p && newest && p[0] >= newest[0]) newest = p;
      }
      if (!newest) continue;
      const ts = newest[0];
      const value = newest[1];
      const latest = asset.variables.get(s.variable);
      if (!latest) {
        asset.variables.set(s.variable, { ts, value, unit: s.unit ?? null, dirty: true });
        this.#dirty += 1;
        continue;
      }
      if (latest.ts > ts) continue;
      if (!latest.dirty) this.#dirty += 1;
      latest.ts = ts;
      latest.value = value;
      latest.unit = s.unit ?? latest.unit;
      latest.dirty = true;
    }
    if (this.#dirty > MAX_DIRTY) this.flush();
  };

  flush(): void {
    if (this.#dirty === 0) return;
    this.#dirty = 0;
    for (const [assetId, asset] of this.#series) {
      for (const [variable, latest] of asset.variables) {
        if (!latest.dirty) continue;
        latest.dirty = false;
        const payload = {
          asset_id: assetId,
          variable,
          value: latest.value,
          unit: latest.unit,
          timestamp: new Date(latest.ts).toISOString(),
        };
        void this.#publish(topics.live(asset.projectId, assetId, variable), payload).catch(() => {});
      }
    }
  }
}
