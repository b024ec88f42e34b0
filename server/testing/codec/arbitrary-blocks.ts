import { wordsToDouble } from "../../store/telemetry/codec/float-bits.ts";
import type { Seeded } from "./seeded.ts";
import { SensorWalk, sensorShape } from "./sensor-data.ts";

/*
 * Generators of arbitrary blocks for the codec's property tests: every shape of timestamps and
 * values a raw row can hold (REAL NOT NULL, so NaN-free), and the edges of each coding.
 */

/** Finite and infinite doubles at the edges of the codings (NaN-free: REAL NOT NULL refuses NaN). */
export const EDGE_VALUES: readonly number[] = [
  0,
  -0,
  1,
  -1,
  1e15,
  -1e15,
  1e15 + 1,
  -(1e15 + 1),
  2 ** 51 - 1,
  -(2 ** 51),
  2 ** 53,
  Number.MAX_SAFE_INTEGER,
  Number.MAX_VALUE,
  -Number.MAX_VALUE,
  Number.MIN_VALUE,
  -Number.MIN_VALUE,
  Number.EPSILON,
  0.1,
  -0.1,
  123.456,
  1e-9,
  2.2250738585072014e-308,
  Math.fround(3.4028234663852886e38),
  Math.fround(-3.4028234663852886e38),
  Math.fround(1.401298464324817e-45),
  Math.fround(1.1754943508222875e-38),
  Math.fround(0.1),
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
];

/** The next float32 above (steps > 0) or below a float32 value, `steps` ordinals away. */
function float32Step(value: number, steps: number): number {
  const view = new DataView(new ArrayBuffer(4));
  view.setFloat32(0, value);
  const bits = view.getUint32(0);
  const ordinal = bits >= 0x80000000 ? 0xffffffff - bits : bits + 0x80000000;
  const next = Math.min(0xff7fffff + 0x80000000, Math.max(0x00800000, ordinal + steps));
  view.setUint32(0, next >= 0x80000000 ? next - 0x80000000 : 0xffffffff - next);
  const out = view.getFloat32(0);
  return Number.isNaN(out) ? value : out;
}

function randomDouble(random: Seeded): number {
  for (;;) {
    const v = wordsToDouble(random.int(0, 0xffffffff), random.int(0, 0xffffffff));
    if (!Number.isNaN(v)) return v;
  }
}

export type ValueShape =
  | "sensor"
  | "float32-steps"
  | "decimal"
  | "integer"
  | "constant"
  | "edges"
  | "doubles"
  | "mixed";
export const VALUE_SHAPES: readonly ValueShape[] = [
  "sensor",
  "float32-steps",
  "decimal",
  "integer",
  "constant",
  "edges",
  "doubles",
  "mixed",
];

export function arbitraryValues(random: Seeded, shape: ValueShape, count: number): Float64Array {
  const out = new Float64Array(count);
  switch (shape) {
    case "sensor":
      return new SensorWalk(sensorShape(random.int(0, 1000)), random.int(1, 1e9)).take(count);
    case "float32-steps": {
      let v = Math.fround((random.next() - 0.5) * 10 ** random.int(-40, 38));
      for (let i = 0; i < count; i++) {
        v = float32Step(v, random.pick([-1, 1, 0, 2, -3, 1 << 20, -(1 << 30)]));
        out[i] = v;
      }
      return out;
    }
    case "decimal": {
      const places = random.int(0, 9);
      const scale = 10 ** places;
      let n = random.int(-1e6, 1e6);
      for (let i = 0; i < count; i++) {
        n += random.int(-500, 500);
        out[i] = n / scale;
      }
      return out;
    }
    case "integer":
      for (let i = 0; i < count; i++) out[i] = random.pick([1e15, -1e15, 0, 7]) + random.int(-1e6, 1e6);
      return out;
    case "constant":
      return out.fill(random.pick(EDGE_VALUES));
    case "edges":
      for (let i = 0; i < count; i++) out[i] = random.pick(EDGE_VALUES);
      return out;
    case "doubles":
      for (let i = 0; i < count; i++) out[i] = randomDouble(random);
      return out;
    case "mixed":
      for (let i = 0; i < count; i++) {
        out[i] = random.pick([
          () => random.pick(EDGE_VALUES),
          () => randomDouble(random),
          () => random.int(-9, 9),
        ])();
      }
      return out;
  }
}

export type TimeShape = "regular" | "jittered" | "irregular" | "duplicates" | "extreme" | "unsorted";
export const TIME_SHAPES: readonly TimeShape[] = [
  "regular",
  "jittered",
  "irregular",
  "duplicates",
  "extreme",
  "unsorted",
];

/** Largest timestamp magnitude the codec takes (exclusive bound 2^49). */
const EXTREME = 2 ** 49 - 1;

export function arbitraryTimestamps(random: Seeded, shape: TimeShape, count: number): Float64Array {
  const out = new Float64Array(count);
  let t = random.int(0, 2) === 0 ? random.int(-1e12, 0) : 1.7e12 + random.int(0, 1e10);
  const period = random.pick([1, 100, 1000, 60_000, 900_000]);
  for (let i = 0; i < count; i++) {
    switch (shape) {
      case "regular":
        t += period;
        break;
      case "jittered":
        t += period + random.int(-Math.min(50, period - 1), 50);
        break;
      case "irregular":
        t += random.pick([0, 1, 999, 1001, 86_400_000, 2 ** 36]) + random.int(0, 5000);
        break;
      case "duplicates":
        t += random.int(0, 2) === 0 ? 0 : period;
        break;
      case "extreme":
        t = random.pick([EXTREME, -EXTREME, 0, EXTREME - 1, -EXTREME + 1]);
        break;
      case "unsorted":
        t = 1.7e12 + random.int(-1e9, 1e9);
        break;
    }
    out[i] = t;
  }
  return out;
}
