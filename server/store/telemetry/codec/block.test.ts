import { describe, expect, it } from "vitest";
import {
  arbitraryTimestamps,
  arbitraryValues,
  EDGE_VALUES,
  TIME_SHAPES,
  VALUE_SHAPES,
} from "../../../testing/codec/arbitrary-blocks.ts";
import { Seeded } from "../../../testing/codec/seeded.ts";
import { SensorWalk, sensorShape } from "../../../testing/codec/sensor-data.ts";
import { CorruptBlockError } from "./bit-reader.ts";
import {
  blockCoding,
  decodeBlock,
  encodeBlock,
  MAX_ABS_TS,
  VALUE_CODINGS,
  type ValueCoding,
} from "./block.ts";
import { isFloat32 } from "./float-bits.ts";
import { decimalPlaces } from "./values-decimal.ts";

/** Bit-exact equality, -0 and all: what was stored must come back, not something equal to it. */
function expectSame(actual: Float64Array, expected: ArrayLike<number>, what: string): void {
  expect(actual.length, what).toBe(expected.length);
  for (let i = 0; i < expected.length; i++) {
    if (!Object.is(actual[i], expected[i])) {
      throw new Error(`${what}: point ${i} came back as ${actual[i]}, stored ${expected[i]}`);
    }
  }
}

function codingsFor(values: ArrayLike<number>): ValueCoding[] {
  const all = Array.from(values);
  return VALUE_CODINGS.filter(
    (c) => c === "xor" || (c === "float32" ? all.every(isFloat32) : decimalPlaces(values) !== undefined),
  );
}

function sizes(random: Seeded): number {
  return random.pick([0, 1, 2, 3, 63, 64, 65, 127, random.int(4, 300), random.int(300, 5000)]);
}

const regular = (count: number, start = 1_700_000_000_000, period = 1000) =>
  Float64Array.from({ length: count }, (_, i) => start + i * period);

describe("packed block codec: round trip (seeded properties)", () => {
  it("gives back every timestamp and value exactly, whatever their shape, in every coding that applies", () => {
    const random = new Seeded(20_260_513);
    let cases = 0;
    for (let round = 0; round < 60; round++) {
      for (const timeShape of TIME_SHAPES) {
        const valueShape = VALUE_SHAPES[round % VALUE_SHAPES.length] ?? "sensor";
        const count = sizes(random);
        const ts = arbitraryTimestamps(random, timeShape, count);
        const values = arbitraryValues(random, valueShape, count);
        const what = `round ${round}, ${timeShape} timestamps, ${valueShape} values, ${count} points`;
        const chosen = decodeBlock(encodeBlock(ts, values));
        expectSame(chosen.ts, ts, `${what} (timestamps)`);
        expectSame(chosen.values, values, what);
        for (const coding of codingsFor(values)) {
          const forced = decodeBlock(encodeBlock(ts, values, coding));
          expectSame(forced.values, values, `${what}, ${coding}`);
          expectSame(forced.ts, ts, `${what}, ${coding} (timestamps)`);
        }
        cases++;
      }
    }
    expect(cases).toBe(60 * TIME_SHAPES.length);
  });

  it("holds the edge values (±1e15, ±MAX_VALUE, denormals, -0, ±Infinity, float32 extremes) alone and side by side", () => {
    for (const v of EDGE_VALUES) {
      const one = decodeBlock(encodeBlock([42], [v]));
      expectSame(one.values, [v], `edge ${v}`);
      const pair = decodeBlock(encodeBlock([1, 2], [v, -v]));
      expectSame(pair.values, [v, -v], `edge ±${v}`);
    }
    const all = decodeBlock(encodeBlock(regular(EDGE_VALUES.length), EDGE_VALUES));
    expectSame(all.values, EDGE_VALUES, "all edges in one block");
    expectSame(
      decodeBlock(encodeBlock([1, 2], [1e15, -1e15], "decimal")).values,
      [1e15, -1e15],
      "±1e15 decimal",
    );
  });

  it("holds float32 steps: neighbours one float32 apart, up and down, across powers of two and zero", () => {
    const values: number[] = [];
    for (const start of [1, 1024, 0.1, 3.4e38, 1.2e-38, 1.4e-45]) {
      const view = new DataView(new ArrayBuffer(4));
      view.setFloat32(0, start);
      const bits = view.getUint32(0);
      for (let d = -3; d <= 3; d++) {
        view.setUint32(0, bits + d);
        const v = view.getFloat32(0);
        if (Number.isFinite(v)) values.push(v, -v);
      }
    }
    values.push(0, Math.fround(-0));
    expect(values.every(isFloat32)).toBe(true);
    const block = encodeBlock(regular(values.length), values);
    expect(blockCoding(block)).toBe("float32");
    expectSame(decodeBlock(block).values, values, "float32 steps");
  });

  it("empty and 1-point blocks", () => {
    const empty = decodeBlock(encodeBlock([], []));
    expect(empty.ts.length).toBe(0);
    expect(empty.values.length).toBe(0);
    const single = decodeBlock(encodeBlock([1_700_000_000_123], [Math.fround(98.6)]));
    expectSame(single.ts, [1_700_000_000_123], "one point ts");
    expectSame(single.values, [Math.fround(98.6)], "one point value");
  });

  it("duplicate and irregular timestamps, kept in the order given", () => {
    const ts = [5, 5, 5, 6, 1_000_000, 1_000_000, -3, MAX_ABS_TS - 1, -(MAX_ABS_TS - 1), 0];
    const values = ts.map((_, i) => i / 4);
    const back = decodeBlock(encodeBlock(ts, values));
    expectSame(back.ts, ts, "timestamps");
    expectSame(back.values, values, "values");
  });
});

describe("packed block codec: choices and limits", () => {
  it("chooses decimal for short decimals, float32 for float32 readings and XOR for other doubles", () => {
    expect(blockCoding(encodeBlock(regular(3), [12.34, 12.35, -7]))).toBe("decimal");
    expect(blockCoding(encodeBlock(regular(3), [Math.fround(12.34), Math.fround(12.35), 1.5]))).toBe(
      "float32",
    );
    expect(blockCoding(encodeBlock(regular(3), [Math.PI, Math.E, 1 / 3]))).toBe("xor");
    // -0 is not a decimal difference (its sign would be lost); float32 holds it.
    expect(blockCoding(encodeBlock(regular(2), [-0, 1]))).toBe("float32");
  });

  it("refuses what it cannot hold: non-integer or out-of-range timestamps, forced codings that do not apply", () => {
    expect(() => encodeBlock([1.5], [1])).toThrow(RangeError);
    expect(() => encodeBlock([MAX_ABS_TS], [1])).toThrow(RangeError);
    expect(() => encodeBlock([Number.NaN], [1])).toThrow(RangeError);
    expect(() => encodeBlock([1, 2], [1])).toThrow(RangeError);
    expect(() => encodeBlock([1], [Math.PI], "decimal")).toThrow(RangeError);
    expect(() => encodeBlock([1], [Math.PI], "float32")).toThrow(RangeError);
  });

  it("rejects truncated or unknown blocks with CorruptBlockError", () => {
    const block = encodeBlock(regular(500), new SensorWalk(sensorShape(1), 1).take(500));
    expect(() => decodeBlock(block.subarray(0, block.length - 20))).toThrow(CorruptBlockError);
    const unknown = Uint8Array.from(block);
    unknown[0] = 99;
    expect(() => decodeBlock(unknown)).toThrow(CorruptBlockError);
  });
});

describe("packed block codec: size on realistic data", () => {
  it("stores an hour of 1 Hz float32 sensor readings (slow walk, 0.1% noise) in under 2.3 bytes a point", () => {
    let bytes = 0;
    let xorBytes = 0;
    const points = 3600;
    for (let s = 0; s < 20; s++) {
      const values = new SensorWalk(sensorShape(s), s + 1).take(points);
      bytes += encodeBlock(regular(points), values).length;
      xorBytes += encodeBlock(regular(points), values, "xor").length;
    }
    const perPoint = bytes / (20 * points);
    expect(perPoint).toBeLessThan(2.3);
    // The float32 coding beats Gorilla's XOR (InfluxDB's float coding) on the same readings.
    expect(perPoint).toBeLessThan((xorBytes / (20 * points)) * 0.9);
  });

  it("stores regular timestamps and a constant reading in a few bytes", () => {
    expect(encodeBlock(regular(3600), new Float64Array(3600).fill(42.5)).length).toBeLessThan(130);
  });
});
