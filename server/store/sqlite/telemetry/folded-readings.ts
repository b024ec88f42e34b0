import { type Bucket, BucketBuilder } from "../../telemetry/buckets.ts";

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
  readonly #builder = new BucketBuilder();
  #newest = Number.NEGATIVE_INFINITY;

  constructor(from: number) {
    this.from = from;
  }

  /** The newest reading folded in. */
  get newest(): number {
    return this.#newest;
  }

  /** The buckets, ascending. */
  get buckets(): readonly Bucket[] {
    return this.#builder.buckets;
  }

  /**
   * One commit's deferred readings of the series (ascending ts); false, folding nothing, when the
   * first is not newer than every reading already folded.
   */
  add(ts: readonly number[], values: readonly number[]): boolean {
    const first = ts[0];
    if (first === undefined || first <= this.#newest) return false;
    for (let i = 0; i < ts.length; i++) this.#builder.add(ts[i] ?? 0, values[i] ?? 0);
    this.#newest = ts.at(-1) ?? this.#newest;
    return true;
  }
}
