import type { BitReader } from "./bit-reader.ts";
import type { BitWriter } from "./bit-writer.ts";
import { readRice, riceBits, unzigzag, writeRice, zigzag } from "./rice.ts";

/*
 * Timestamps are stored as the differences of their deltas, zigzag and Rice-coded. Two references
 * for a delta are measured per block and the cheaper kept:
 * - the previous delta (delta-of-delta, Gorilla §4.1.1): best when the interval drifts;
 * - one base delta for the block (its median): a reading polled on a fixed period with jitter j
 *   has delta-of-delta j(i) − 2j(i−1) + j(i−2), three times the variance of j(i) − j(i−1).
 * A regular series costs nothing per point either way (all-zero Rice chunks).
 */

export const TIMESTAMP_CODINGS = ["delta-of-delta", "base-delta"] as const;
export type TimestampCoding = (typeof TIMESTAMP_CODINGS)[number];

/** Bits of a zigzag base delta: deltas stay below 2^50 (timestamps within ±2^49). */
const BASE_BITS = 51;

function deltas(ts: ArrayLike<number>): Float64Array {
  const out = new Float64Array(Math.max(0, ts.length - 1));
  for (let i = 1; i < ts.length; i++) out[i - 1] = (ts[i] ?? 0) - (ts[i - 1] ?? 0);
  return out;
}

/** Deltas sampled for the base: enough for a median, few enough to sort in a blink. */
const MEDIAN_SAMPLE = 255;

/** The median of an even sample of the values (the values themselves when few). */
function median(values: Float64Array): number {
  if (values.length === 0) return 0;
  const step = Math.max(1, values.length / MEDIAN_SAMPLE);
  const sample = new Float64Array(Math.min(values.length, MEDIAN_SAMPLE));
  for (let i = 0; i < sample.length; i++) sample[i] = values[Math.floor(i * step)] ?? 0;
  sample.sort();
  return sample[sample.length >> 1] ?? 0;
}

export type EncodedTimestamps = { coding: TimestampCoding; base: number; residuals: Float64Array };

/** The residuals of the cheaper coding for these timestamps. */
export function timestampResiduals(ts: ArrayLike<number>): EncodedTimestamps {
  const d = deltas(ts);
  const ofPrevious = new Float64Array(d.length);
  let previous = 0;
  for (let i = 0; i < d.length; i++) {
    const delta = d[i] ?? 0;
    ofPrevious[i] = zigzag(delta - previous);
    previous = delta;
  }
  const base = median(d);
  const ofBase = new Float64Array(d.length);
  for (let i = 0; i < d.length; i++) ofBase[i] = zigzag((d[i] ?? 0) - base);
  return riceBits(ofBase) + BASE_BITS < riceBits(ofPrevious)
    ? { coding: "base-delta", base, residuals: ofBase }
    : { coding: "delta-of-delta", base: 0, residuals: ofPrevious };
}

export function writeTimestamps(w: BitWriter, encoded: EncodedTimestamps): void {
  if (encoded.coding === "base-delta") w.wide(zigzag(encoded.base), BASE_BITS);
  writeRice(w, encoded.residuals);
}

/** Reads `out.length` timestamps, the first of which is `first`. */
export function readTimestamps(
  r: BitReader,
  coding: TimestampCoding,
  first: number,
  out: Float64Array,
): void {
  if (out.length === 0) return;
  const base = coding === "base-delta" ? unzigzag(r.wide(BASE_BITS)) : 0;
  const residuals = out.subarray(1);
  readRice(r, residuals.length, residuals);
  out[0] = first;
  let t = first;
  let delta = 0;
  for (let i = 1; i < out.length; i++) {
    const residual = unzigzag(out[i] ?? 0);
    delta = coding === "base-delta" ? base + residual : delta + residual;
    t += delta;
    out[i] = t;
  }
}
