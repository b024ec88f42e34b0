import { ROLLUP_BUCKET_MS } from "../ports/telemetry-store.ts";

/** Rollup widths, aligned to the UTC epoch: the 5-minute and hourly rollups, and a UTC day. */
export const BUCKET_5M_MS = ROLLUP_BUCKET_MS;
export const BUCKET_1H_MS = 3600_000;
export const DAY_MS = 86_400_000;

/** One 5-minute window of one series. */
export type Bucket = { start: number; count: number; sum: number; min: number; max: number };

/** Folds (ts ascending) readings into 5-minute buckets. */
export class BucketBuilder {
  readonly buckets: Bucket[] = [];
  #current: Bucket | undefined;

  add(ts: number, value: number): void {
    const start = ts - (ts % BUCKET_5M_MS);
    let b = this.#current;
    if (!b || b.start !== start) {
      b = { start, count: 0, sum: 0, min: value, max: value };
      this.buckets.push(b);
      this.#current = b;
    }
    b.count++;
    b.sum += value;
    if (value < b.min) b.min = value;
    if (value > b.max) b.max = value;
  }
}
