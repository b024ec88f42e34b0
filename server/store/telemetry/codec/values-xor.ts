import type { BitReader } from "./bit-reader.ts";
import type { BitWriter } from "./bit-writer.ts";
import { doubleWords, wordsToDouble } from "./float-bits.ts";

/*
 * Any doubles: the XOR scheme of Gorilla (Pelkonen et al., VLDB 2015, §4.1.2), as in InfluxDB's
 * TSM float blocks. The first value is stored whole; each next one as its XOR with the previous:
 * '0' when equal; '10' and the meaningful bits when they fit the previous window of leading and
 * trailing zeros; else '11', 5 bits of leading zeros, 6 of meaningful length (64 as 0) and the bits.
 * 64-bit words are handled as two 32-bit halves (JavaScript bitwise operators are 32-bit).
 */

function write32(w: BitWriter, word: number): void {
  w.bits(word >>> 16, 16);
  w.bits(word & 0xffff, 16);
}

function read32(r: BitReader): number {
  return ((r.bits(16) << 16) | r.bits(16)) >>> 0;
}

function trailingZeros32(x: number): number {
  return 31 - Math.clz32(x & -x);
}

/** Writes bits [tz, 64 - lz) of the 64-bit word (hi, lo). */
function writeMeaningful(w: BitWriter, hi: number, lo: number, lz: number, tz: number): void {
  const length = 64 - lz - tz;
  let vHi: number;
  let vLo: number;
  if (tz >= 32) {
    vHi = 0;
    vLo = hi >>> (tz - 32);
  } else if (tz === 0) {
    vHi = hi;
    vLo = lo;
  } else {
    vHi = hi >>> tz;
    vLo = ((lo >>> tz) | (hi << (32 - tz))) >>> 0;
  }
  if (length > 32) {
    w.wide(vHi, length - 32);
    write32(w, vLo);
  } else {
    w.wide(vLo, length);
  }
}

export function writeXor(w: BitWriter, values: ArrayLike<number>): void {
  if (values.length === 0) return;
  let [prevHi, prevLo] = doubleWords(values[0] ?? 0);
  write32(w, prevHi);
  write32(w, prevLo);
  let windowLz = -1;
  let windowTz = 0;
  for (let i = 1; i < values.length; i++) {
    const [hi, lo] = doubleWords(values[i] ?? 0);
    const xHi = (hi ^ prevHi) >>> 0;
    const xLo = (lo ^ prevLo) >>> 0;
    prevHi = hi;
    prevLo = lo;
    if (xHi === 0 && xLo === 0) {
      w.bits(0, 1);
      continue;
    }
    const lz = Math.min(31, xHi !== 0 ? Math.clz32(xHi) : 32 + Math.clz32(xLo));
    const tz = xLo !== 0 ? trailingZeros32(xLo) : 32 + trailingZeros32(xHi);
    if (windowLz >= 0 && lz >= windowLz && tz >= windowTz) {
      w.bits(0b10, 2);
      writeMeaningful(w, xHi, xLo, windowLz, windowTz);
    } else {
      w.bits(0b11, 2);
      w.bits(lz, 5);
      w.bits((64 - lz - tz) & 63, 6);
      writeMeaningful(w, xHi, xLo, lz, tz);
      windowLz = lz;
      windowTz = tz;
    }
  }
}

export function readXor(r: BitReader, out: Float64Array): void {
  if (out.length === 0) return;
  let hi = read32(r);
  let lo = read32(r);
  out[0] = wordsToDouble(hi, lo);
  let windowLz = 0;
  let windowTz = 0;
  for (let i = 1; i < out.length; i++) {
    if (r.bits(1) === 1) {
      if (r.bits(1) === 1) {
        windowLz = r.bits(5);
        const length = r.bits(6) || 64;
        windowTz = 64 - windowLz - length;
      }
      const length = 64 - windowLz - windowTz;
      let vHi = 0;
      let vLo: number;
      if (length > 32) {
        vHi = r.wide(length - 32);
        vLo = read32(r);
      } else {
        vLo = r.wide(length);
      }
      // Shift (vHi, vLo) left by windowTz into place, then XOR into the previous value.
      let xHi: number;
      let xLo: number;
      if (windowTz >= 32) {
        xHi = vLo << (windowTz - 32);
        xLo = 0;
      } else if (windowTz === 0) {
        xHi = vHi;
        xLo = vLo;
      } else {
        xHi = (vHi << windowTz) | (vLo >>> (32 - windowTz));
        xLo = vLo << windowTz;
      }
      hi = (hi ^ xHi) >>> 0;
      lo = (lo ^ xLo) >>> 0;
    }
    out[i] = wordsToDouble(hi, lo);
  }
}
