import type { BitReader } from "./bit-reader.ts";
import type { BitWriter } from "./bit-writer.ts";
import { float32Ordinal, ordinalToFloat32 } from "./float-bits.ts";
import { readRice, unzigzag, writeRice, zigzag } from "./rice.ts";

/*
 * Readings that are exactly float32 (OPC UA Float, Modbus REAL, most sensors) carry 29 zero bits
 * in their double's mantissa. They are stored as differences of their float32 ordinals: the
 * number of float32 steps from one reading to the next, which for a slowly moving noisy signal is
 * a small integer set by the noise alone. An XOR of the doubles (Gorilla) also pays for every bit
 * a carry flips and for its own window headers.
 */

export function writeFloat32(w: BitWriter, values: ArrayLike<number>): void {
  const residuals = new Float64Array(values.length);
  let previous = 0;
  for (let i = 0; i < values.length; i++) {
    const ordinal = float32Ordinal(values[i] ?? 0);
    residuals[i] = zigzag(ordinal - previous);
    previous = ordinal;
  }
  writeRice(w, residuals);
}

export function readFloat32(r: BitReader, out: Float64Array): void {
  readRice(r, out.length, out);
  let ordinal = 0;
  for (let i = 0; i < out.length; i++) {
    ordinal += unzigzag(out[i] ?? 0);
    out[i] = ordinalToFloat32(ordinal);
  }
}
