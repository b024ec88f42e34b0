import type { Bucket } from "../../telemetry/buckets.ts";

/**
 * A pending series' deferred readings, folded into 5-minute buckets by the commits that stored
 * them, so the roll-up pass merges a few buckets instead of reading every reading back (and, for
 * packed ones, decoding their blocks): that read-back was 7% of the server's main thread under
 * MQTT load. Holds every stored reading of the series at or after `from`, or is dropped
 * (RollupTracker keeps that promise).
 */
export class FoldedReadings {
  /** The roll-up watermark the readings were deferred from. */
  readonly from: number;
  readonly #buckets = new Map<number, Bucket>();
  #newest = Number.NEGATIVE_INFINITY;

  constructor(from: number) {
    this.from = from;
  }

  /** The newest reading folded in. */
  get newest(): number {
    return this.#newest;
  }

  /** One commit's deferred readings of the series, folded; `buckets` become this object's own. */
  add(buckets: readonly Bucket[], newest: number): void {
    for (const b of buckets) {
      const known = this.#buckets.get(b.start);
      if (!known) {
        this.#buckets.set(b.start, b);
        continue;
      }
      known.count += b.count;
      known.sum += b.sum;
      if (b.min < known.min) known.min = b.min;
      if (b.max > known.max) known.max = b.max;
    }
    if (newest > this.#newest) this.#newest = newest;
  }

  /** The buckets, ascending (mergeBuckets re-derives each hour once). */
  buckets(): Bucket[] {
    return [...this.#buckets.values()].sort((a, b) => a.start - b.start);
  }
}
