import type { BitReader } from "./bit-reader.ts";
import type { BitWriter } from "./bit-writer.ts";

/*
 * Golomb–Rice codes (Rice 1979; the residual coding of FLAC and Shorten) for streams of
 * non-negative integers: each value is its quotient by 2^k in unary, then its k low bits. The
 * stream is cut into chunks of RICE_CHUNK values and each chunk carries the k that codes it in the
 * fewest bits, so the code follows the local spread of the residuals. A chunk of zeros (regular
 * timestamps, a constant reading) costs its 5-bit header and nothing per value.
 */

/** Values per chunk sharing one Rice parameter. */
const RICE_CHUNK = 64;
/** Chunk header: every value of the chunk is zero, and none is written. */
const ALL_ZERO = 31;
/** Largest Rice parameter; with the ALL_ZERO code, the header fits 5 bits. */
const MAX_K = 30;
/** A quotient this large is escaped: ESCAPE ones, then 6 bits of bit length and the value itself. */
const ESCAPE = 16;
const TWO_32 = 0x100000000;

/** Maps signed integers to non-negative ones, small magnitudes first (0, -1, 1, -2, …). */
export function zigzag(v: number): number {
  return v >= 0 ? v * 2 : -v * 2 - 1;
}

export function unzigzag(z: number): number {
  return z % 2 === 0 ? z / 2 : -(z + 1) / 2;
}

/** Bits needed for z (1 ≤ z < 2^53). */
function bitLength(z: number): number {
  if (z < TWO_32) return 32 - Math.clz32(z);
  return 64 - Math.clz32(Math.floor(z / TWO_32));
}

function valueCost(z: number, k: number): number {
  const q = Math.floor(z / 2 ** k);
  return q < ESCAPE ? q + 1 + k : ESCAPE + 6 + bitLength(z);
}

/** The cost of z under k when z < 2^32 and q = z >>> k. */
function smallCost(z: number, q: number, k: number): number {
  return q < ESCAPE ? q + 1 + k : ESCAPE + 6 + bitLength(z);
}

/**
 * The k that codes values[from, to) in the fewest bits, searched around log2 of their mean (the
 * lowest of equal costs), and that cost. The up to three candidates are costed in one pass, with
 * shifts where the values fit 32 bits: the search was a tenth of the write path's time.
 */
function bestK(
  values: ArrayLike<number>,
  from: number,
  to: number,
  sum: number,
): { k: number; bits: number } {
  const mean = sum / (to - from);
  const guess = mean < 2 ? 0 : Math.min(MAX_K, Math.floor(Math.log2(mean)));
  const k0 = Math.max(0, guess - 1);
  const last = Math.min(MAX_K, guess + 1);
  let c0 = 0;
  let c1 = 0;
  let c2 = 0;
  for (let i = from; i < to; i++) {
    const z = values[i] ?? 0;
    if (z < TWO_32) {
      const q = z >>> k0;
      c0 += smallCost(z, q, k0);
      c1 += smallCost(z, q >>> 1, k0 + 1);
      c2 += smallCost(z, q >>> 2, k0 + 2);
    } else {
      c0 += valueCost(z, k0);
      c1 += valueCost(z, k0 + 1);
      c2 += valueCost(z, k0 + 2);
    }
  }
  let k = k0;
  let bits = c0;
  if (k0 + 1 <= last && c1 < bits) {
    k = k0 + 1;
    bits = c1;
  }
  if (k0 + 2 <= last && c2 < bits) {
    k = k0 + 2;
    bits = c2;
  }
  return { k, bits };
}

function writeValue(w: BitWriter, z: number, k: number): void {
  if (z < TWO_32 && k <= 24) {
    const q = z >>> k;
    if (q < ESCAPE && q + 1 + k <= 24) {
      // Unary quotient, its stop bit and the remainder in one write.
      w.bits((((1 << q) - 1) << (k + 1)) | (z & ((1 << k) - 1)), q + 1 + k);
      return;
    }
  }
  const scale = 2 ** k;
  const q = Math.floor(z / scale);
  if (q < ESCAPE) {
    w.bits(((1 << q) - 1) << 1, q + 1);
    w.wide(z - q * scale, k);
    return;
  }
  w.ones(ESCAPE);
  const length = bitLength(z);
  w.bits(length, 6);
  w.wide(z, length);
}

/** The bits writeRice would write for these values. */
export function riceBits(values: ArrayLike<number>): number {
  let bits = 0;
  for (let from = 0; from < values.length; from += RICE_CHUNK) {
    const to = Math.min(values.length, from + RICE_CHUNK);
    let sum = 0;
    for (let i = from; i < to; i++) sum += values[i] ?? 0;
    bits += 5;
    if (sum !== 0) bits += bestK(values, from, to, sum).bits;
  }
  return bits;
}

/** Writes non-negative integers below 2^53. */
export function writeRice(w: BitWriter, values: ArrayLike<number>): void {
  for (let from = 0; from < values.length; from += RICE_CHUNK) {
    const to = Math.min(values.length, from + RICE_CHUNK);
    let sum = 0;
    for (let i = from; i < to; i++) sum += values[i] ?? 0;
    if (sum === 0) {
      w.bits(ALL_ZERO, 5);
      continue;
    }
    const { k } = bestK(values, from, to, sum);
    w.bits(k, 5);
    for (let i = from; i < to; i++) writeValue(w, values[i] ?? 0, k);
  }
}

/** Reads `count` values written by writeRice into out[0, count). */
export function readRice(r: BitReader, count: number, out: Float64Array): void {
  for (let from = 0; from < count; from += RICE_CHUNK) {
    const to = Math.min(count, from + RICE_CHUNK);
    const k = r.bits(5);
    if (k === ALL_ZERO) {
      out.fill(0, from, to);
      continue;
    }
    const scale = 2 ** k;
    for (let i = from; i < to; i++) {
      const q = r.ones(ESCAPE);
      if (q === ESCAPE) {
        out[i] = r.wide(r.bits(6));
      } else {
        out[i] = k === 0 ? q : q * scale + (k <= 24 ? r.bits(k) : r.wide(k));
      }
    }
  }
}
