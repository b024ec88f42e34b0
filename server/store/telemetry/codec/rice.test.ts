import { describe, expect, it } from "vitest";
import { BitReader } from "./bit-reader.ts";
import { BitWriter } from "./bit-writer.ts";
import { readRice, riceBits, writeRice } from "./rice.ts";

/** mulberry32, seeded: the same streams on every run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function written(values: number[]): Uint8Array {
  const w = new BitWriter();
  writeRice(w, values);
  return w.finish();
}

describe("Rice codes", () => {
  it("riceBits counts what writeRice writes, and readRice gives every value back, on streams of every spread", () => {
    const next = random(7);
    const spreads = [
      () => 0,
      () => Math.floor(next() * 4),
      () => Math.floor(-Math.log(1 - next()) * 300),
      () => Math.floor(next() * 2 ** 31),
      // Beyond 32 bits: the shifts give way to division there.
      () => Math.floor(next() * 2 ** 40),
      () => Number.MAX_SAFE_INTEGER - Math.floor(next() * 1000),
      () => (next() < 0.9 ? Math.floor(next() * 8) : Math.floor(next() * 2 ** 45)),
    ];
    for (let round = 0; round < 300; round++) {
      const spread = spreads[round % spreads.length] ?? (() => 0);
      const values = Array.from({ length: Math.floor(next() * 300) }, spread);
      const bytes = written(values);
      expect(Math.ceil(riceBits(values) / 8)).toBe(bytes.length);
      const out = new Float64Array(values.length);
      readRice(new BitReader(bytes), values.length, out);
      expect(Array.from(out)).toEqual(values);
    }
  });

  it("codes a chunk with the cheapest k around log2 of its mean, the lowest of equal costs", () => {
    // Mean 5: k = 1, 2 and 3 all cost 4 bits a value; k = 1 is taken.
    const fives = new Array(64).fill(5);
    expect(new BitReader(written(fives)).bits(5)).toBe(1);
    expect(riceBits(fives)).toBe(5 + 64 * 4);
    // 0 and 12 in turn (mean 6): k = 1 costs 5 bits a value, k = 2 and 3 cost 4.5; k = 2 is taken.
    const mixed = Array.from({ length: 64 }, (_, i) => (i % 2 === 0 ? 0 : 12));
    expect(new BitReader(written(mixed)).bits(5)).toBe(2);
    expect(riceBits(mixed)).toBe(5 + 64 * 4.5);
  });
});
