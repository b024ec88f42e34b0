import { BUCKET_5M_MS, type Bucket } from "../../telemetry/buckets.ts";

/**
 * A pending series' deferred readings, folded into 5-minute buckets as the commits that stored
 * them report them, so the roll-up pass merges a few buckets instead of reading every reading back
 * (and, for packed ones, decoding their blocks): that read-back was 7% of the server's main thread
 * under MQTT load. Holds every stored reading of the series at or after `from`, or is dropped
 * (RollupTracker keeps that promise).
 *
 * The arithmetic is the read-back's, exactly: a bucket's readings are added one at a time, in ts
 * order, from 0 (BucketBuilder). So readings are taken only in ascending order; a commit with a
 * reading not newer than those already folded is refused, and the series is read back instead.
 */
export class FoldedReadings {
  /** The roll-up watermark the readings were deferred from. */
  readonly from: number;
  /** Ascending; only the last can still grow. */
  readonly buckets: Bucket[] = [];
  #newest = Number.NEGATIVE_INFINITY;

  constructor(from: number) {
    this.from = from;
  }

  /** The newest reading folded in. */
  get newest(): number {
    return this.#newest;
  }

  /**
   * One commit's deferred readings of the series (ascending ts); false, folding nothing, when the
   * first is not newer than every reading already folded.
   */
  add(ts: readonly number[], values: readonly number[]): boolean {
    const first = ts[0];
    if (first === undefined || first <= this.#newest) return false;
    let b = this.buckets.at(-1);
    for (let i = 0; i < ts.length; i++) {
      const t = ts[i] ?? 0;
      const value = values[i] ?? 0;
      const start = t - (t % BUCKET_5M_MS);
      if (!b || b.start !== start) {
        b = { start, count: 0, sum: 0, min: value, max: value };
        this.buckets.push(b);
      }
      b.count++;
      b.sum += value;
      if (value < b.min) b.min = value;
      if (value > b.max) b.max = value;
    }
    this.#newest = ts.at(-1) ?? this.#newest;
    return true;
  }
}
