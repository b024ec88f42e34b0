import { BitReader, CorruptBlockError } from "./bit-reader.ts";
import { BitWriter } from "./bit-writer.ts";
import { isFloat32 } from "./float-bits.ts";
import { unzigzag, zigzag } from "./rice.ts";
import {
  type EncodedTimestamps,
  readTimestamps,
  TIMESTAMP_CODINGS,
  type TimestampCoding,
  timestampResiduals,
  writeTimestamps,
} from "./timestamps.ts";
import { decimalPlaces, readDecimal, writeDecimal } from "./values-decimal.ts";
import { readFloat32, writeFloat32 } from "./values-float32.ts";
import { readXor, writeXor } from "./values-xor.ts";

/*
 * One packed block: the points (timestamp in epoch ms, value) of one series, in the order given.
 *
 *   8 bits   format (BLOCK_FORMAT)
 *   8 bits   codings: values (bits 0–1), timestamps (bits 2–3), decimal places (bits 4–7)
 *   32 bits  point count
 *   50 bits  first timestamp, zigzag
 *   timestamps: differences of deltas (timestamps.ts), Rice-coded (rice.ts); regular timestamps
 *            cost 5 bits per 64 points
 *   values:  the coding that stores the block in the fewest bits among those that hold it exactly:
 *            decimal differences, float32 step differences, or Gorilla XOR (any double)
 */

const BLOCK_FORMAT = 1;

/** Timestamps strictly within ±2^49 ms (±17,000 years) keep every delta-of-delta exact in a double. */
export const MAX_ABS_TS = 2 ** 49;

export const VALUE_CODINGS = ["decimal", "float32", "xor"] as const;
export type ValueCoding = (typeof VALUE_CODINGS)[number];

export type Points = { ts: Float64Array; values: Float64Array };

const HEADER_BITS = 8 + 8 + 32 + 50;

function checkTimestamps(ts: ArrayLike<number>): void {
  for (let i = 0; i < ts.length; i++) {
    const t = ts[i] ?? Number.NaN;
    if (!Number.isInteger(t) || Math.abs(t) >= MAX_ABS_TS) {
      throw new RangeError(`timestamp ${t} is not an integer within ±2^49 ms (exclusive)`);
    }
  }
}

function encodeWith(
  ts: ArrayLike<number>,
  times: EncodedTimestamps,
  values: ArrayLike<number>,
  coding: ValueCoding,
  places = 0,
): Uint8Array {
  const w = new BitWriter(HEADER_BITS / 8 + ts.length * 3);
  w.bits(BLOCK_FORMAT, 8);
  w.bits((places << 4) | (TIMESTAMP_CODINGS.indexOf(times.coding) << 2) | VALUE_CODINGS.indexOf(coding), 8);
  w.wide(ts.length, 32);
  w.wide(zigzag(ts[0] ?? 0), 50);
  writeTimestamps(w, times);
  if (coding === "decimal") writeDecimal(w, values, places);
  else if (coding === "float32") writeFloat32(w, values);
  else writeXor(w, values);
  return w.finish();
}

/**
 * Encodes the points (ts[i], values[i]). Every coding that holds the values exactly is tried and
 * the smallest result kept; `coding` forces one (tests, measurements) and throws if it cannot.
 */
export function encodeBlock(
  ts: ArrayLike<number>,
  values: ArrayLike<number>,
  coding?: ValueCoding,
): Uint8Array {
  if (ts.length !== values.length) throw new RangeError("timestamps and values differ in length");
  checkTimestamps(ts);
  const places = decimalPlaces(values);
  let float32 = true;
  for (let i = 0; i < values.length && float32; i++) float32 = isFloat32(values[i] ?? 0);
  if (coding === "decimal" && places === undefined) throw new RangeError("values are not short decimals");
  if (coding === "float32" && !float32) throw new RangeError("values are not all float32");
  const times = timestampResiduals(ts);
  if (coding !== undefined) return encodeWith(ts, times, values, coding, places ?? 0);

  let best: Uint8Array | undefined;
  const consider = (bytes: Uint8Array) => {
    if (!best || bytes.length < best.length) best = bytes;
  };
  if (places !== undefined) consider(encodeWith(ts, times, values, "decimal", places));
  if (float32) consider(encodeWith(ts, times, values, "float32"));
  // XOR only when neither exact integer coding applies: on such values it never came out smaller.
  return best ?? encodeWith(ts, times, values, "xor");
}

type Header = {
  coding: ValueCoding;
  timestamps: TimestampCoding;
  places: number;
  count: number;
  first: number;
};

function readHeader(r: BitReader): Header {
  const format = r.bits(8);
  if (format !== BLOCK_FORMAT) throw new CorruptBlockError(`unknown block format ${format}`);
  const mode = r.bits(8);
  const coding = VALUE_CODINGS[mode & 0b11];
  const timestamps = TIMESTAMP_CODINGS[(mode >> 2) & 0b11];
  if (coding === undefined || timestamps === undefined) {
    throw new CorruptBlockError(`unknown codings ${mode & 0x0f}`);
  }
  return { coding, timestamps, places: mode >> 4, count: r.wide(32), first: unzigzag(r.wide(50)) };
}

/** The block's points, in the order they were encoded. */
export function decodeBlock(bytes: Uint8Array): Points {
  const r = new BitReader(bytes);
  const { coding, timestamps, places, count, first } = readHeader(r);
  const ts = new Float64Array(count);
  const values = new Float64Array(count);
  readTimestamps(r, timestamps, first, ts);
  if (coding === "decimal") readDecimal(r, values, places);
  else if (coding === "float32") readFloat32(r, values);
  else readXor(r, values);
  return { ts, values };
}

/** The value coding a block uses (measurements, tests). */
export function blockCoding(bytes: Uint8Array): ValueCoding {
  return readHeader(new BitReader(bytes)).coding;
}
