import type { BitReader } from "./bit-reader.ts";
import type { BitWriter } from "./bit-writer.ts";
import { readRice, unzigzag, writeRice, zigzag } from "./rice.ts";

/** Decimal places tried: readings typed or scaled as decimals rarely carry more. */
const MAX_DECIMALS = 9;
/** |n| below 2^51 keeps every difference and its zigzag under 2^53 (exact in a double). */
const LIMIT = 2 ** 51;

/*
 * Readings that are decimals with few places (JSON numbers like 12.34, integers, Modbus registers
 * times 0.1) are integers n over 10^d: n / 10^d, a correctly rounded division, gives back exactly
 * the double that parsing "12.34" gives. They are stored as the differences of those integers.
 */

function fits(value: number, scale: number): boolean {
  const n = Math.round(value * scale);
  // -0 is excluded: as an integer difference its sign would be lost.
  return Math.abs(n) < LIMIT && n / scale === value && !Object.is(value, -0);
}

/** The fewest decimal places d ≤ MAX_DECIMALS at which every value is n / 10^d exactly, if any. */
export function decimalPlaces(values: ArrayLike<number>): number | undefined {
  let places = 0;
  let scale = 1;
  for (let i = 0; i < values.length; i++) {
    const v = values[i] ?? 0;
    while (!fits(v, scale)) {
      if (places === MAX_DECIMALS) return undefined;
      places++;
      scale = 10 ** places;
    }
  }
  // A value that fit at fewer places may not at more (|n| grows): check them all once more.
  for (let i = 0; i < values.length; i++) if (!fits(values[i] ?? 0, scale)) return undefined;
  return places;
}

export function writeDecimal(w: BitWriter, values: ArrayLike<number>, places: number): void {
  const scale = 10 ** places;
  const residuals = new Float64Array(values.length);
  let previous = 0;
  for (let i = 0; i < values.length; i++) {
    const n = Math.round((values[i] ?? 0) * scale);
    residuals[i] = zigzag(n - previous);
    previous = n;
  }
  writeRice(w, residuals);
}

export function readDecimal(r: BitReader, out: Float64Array, places: number): void {
  readRice(r, out.length, out);
  const scale = 10 ** places;
  let n = 0;
  for (let i = 0; i < out.length; i++) {
    n += unzigzag(out[i] ?? 0);
    out[i] = n / scale;
  }
}
