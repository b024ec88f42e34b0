import { describe, expect, it } from "vitest";
import { SensorWalk } from "./sensor-walk.ts";
import { checkPassed, SeriesLog, StoredCheck } from "./series-log.ts";

const spec = { assetId: "a", seed: 5, variables: 3, startMs: 1_700_000_000_000, blockSeconds: 2 };

describe("SensorWalk", () => {
  it("is the same for the same seed, float32 values, and differs by seed", () => {
    const a = new SensorWalk(9, 50).take(1000);
    const b = new SensorWalk(9, 50).take(1000);
    expect(Array.from(a)).toEqual(Array.from(b));
    expect(Array.from(new SensorWalk(10, 50).take(1000))).not.toEqual(Array.from(a));
    // A slow walk: consecutive readings of one variable stay within a few percent of each other.
    for (let s = 1; s < 1000; s++) {
      const [prev, next] = [a[(s - 1) * 50] ?? 0, a[s * 50] ?? 0];
      expect(Math.abs(next - prev) / prev).toBeLessThan(0.02);
    }
    expect(new Set(a).size).toBeGreaterThan(40_000);
  });
});

describe("StoredCheck", () => {
  it("passes every acknowledged point read back once with its value", () => {
    const log = new SeriesLog(spec);
    for (let b = 0; b < 3; b++) log.ack(log.nextBlock().index);
    const check = new StoredCheck(log);
    const replay = new SensorWalk(spec.seed, spec.variables).take(6);
    for (let s = 0; s < 6; s++) {
      for (let v = 0; v < 3; v++) check.row(spec.startMs + s * 1000, v, replay[s * 3 + v] ?? Number.NaN);
    }
    expect(check.result()).toEqual({
      acknowledged: 18,
      exact: 18,
      missing: 0,
      wrongValue: 0,
      duplicates: 0,
      unacknowledged: 0,
      unexpected: 0,
    });
    expect(checkPassed(check.result())).toBe(true);
  });

  it("counts missing, wrong, duplicate, unexpected and unacknowledged rows", () => {
    const log = new SeriesLog(spec);
    const first = log.nextBlock();
    log.ack(first.index);
    const second = log.nextBlock();
    const check = new StoredCheck(log);
    const value = (block: typeof first, s: number, v: number) => block.values[s * 3 + v] ?? Number.NaN;
    check.row(spec.startMs, 0, value(first, 0, 0));
    check.row(spec.startMs, 0, value(first, 0, 0));
    check.row(spec.startMs, 1, value(first, 0, 1) + 1e-3);
    check.row(spec.startMs + 500, 2, 1);
    check.row(spec.startMs, 7, 1);
    check.row(spec.startMs + 10_000, 0, 1);
    check.row(spec.startMs + 2000, 0, value(second, 0, 0));
    const result = check.result();
    expect(result).toEqual({
      acknowledged: 6,
      exact: 1,
      missing: 4,
      wrongValue: 1,
      duplicates: 1,
      unacknowledged: 1,
      unexpected: 3,
    });
    expect(checkPassed(result)).toBe(false);
  });
});
