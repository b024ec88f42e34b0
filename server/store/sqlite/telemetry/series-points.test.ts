import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Seeded } from "../../../testing/codec/seeded.ts";
import { MAX_BLOCK_POINTS } from "../../telemetry/blocks.ts";
import { BUCKET_5M_MS, DAY_MS } from "../../telemetry/buckets.ts";
import { decodeBlock } from "../../telemetry/codec/block.ts";
import { type DatabaseHandle, openDatabase } from "../client.ts";
import { PackStatements, packNext } from "./pack-block.ts";
import { PackedRetention } from "./packed-retention.ts";
import { RollupStatements, readRollupState, rollUpSeries } from "./rollups.ts";
import { type PointRow, SeriesPoints } from "./series-points.ts";

/*
 * The stored points of a series, raw and packed, against a plain model of what was stored: every
 * read merges both exactly, whatever was packed, merged late or trimmed by retention.
 */

const T0 = Date.UTC(2026, 0, 10, 20); // four hours before a UTC midnight

type Model = Map<number, number>;

function sorted(model: Model): PointRow[] {
  return [...model.entries()].sort((a, b) => a[0] - b[0]);
}

/** Point lists compared element by element (toEqual is slow on tens of thousands of rows). */
function expectPoints(actual: PointRow[], expected: PointRow[], what: string): void {
  const n = Math.max(actual.length, expected.length);
  for (let i = 0; i < n; i++) {
    const a = actual[i];
    const e = expected[i];
    if (!a || !e || a[0] !== e[0] || !Object.is(a[1], e[1])) {
      throw new Error(`${what}: row ${i} is ${JSON.stringify(a)}, expected ${JSON.stringify(e)}`);
    }
  }
}

describe("SeriesPoints over raw rows and packed blocks", () => {
  let handle: DatabaseHandle;
  let points: SeriesPoints;
  let pack: PackStatements;
  const sqlite = () => handle.sqlite;
  beforeAll(() => {
    handle = openDatabase(":memory:");
    points = new SeriesPoints(handle.sqlite);
    pack = new PackStatements(handle.sqlite);
  });
  afterAll(() => handle.close());

  const insertRaw = (series: number, model: Model, ts: number, value: number) => {
    if (model.has(ts)) return;
    model.set(ts, value);
    sqlite()
      .prepare("INSERT INTO telemetry_raw (series_id, ts, value) VALUES (?, ?, ?)")
      .run(series, ts, value);
  };
  const packAll = (series: number, before: number) => {
    let steps = 0;
    while (
      sqlite()
        .transaction(() => packNext(pack, series, before))
        .immediate()
    )
      steps++;
    return steps;
  };
  const rawTs = (series: number) =>
    sqlite()
      .prepare<[number], number>("SELECT ts FROM telemetry_raw WHERE series_id = ? ORDER BY ts")
      .pluck()
      .all(series);
  const blocks = (series: number) =>
    sqlite()
      .prepare<[number], [number, number, number, Uint8Array]>(
        "SELECT first_ts, last_ts, count, data FROM telemetry_packed WHERE series_id = ? ORDER BY first_ts",
      )
      .raw()
      .all(series);

  /** Blocks tile without overlap, each inside one UTC day, holding what their row says; no ts twice. */
  const expectInvariants = (series: number) => {
    const raw = new Set(rawTs(series));
    let previousLast = Number.NEGATIVE_INFINITY;
    for (const [first, last, count, data] of blocks(series)) {
      const { ts } = decodeBlock(data);
      expect([ts.length, ts[0], ts.at(-1)]).toEqual([count, first, last]);
      expect(count).toBeLessThanOrEqual(MAX_BLOCK_POINTS);
      expect(first).toBeGreaterThan(previousLast);
      expect(Math.floor(first / DAY_MS)).toBe(Math.floor(last / DAY_MS));
      for (let i = 1; i < ts.length; i++) expect(ts[i]).toBeGreaterThan(ts[i - 1] ?? 0);
      for (const t of ts) if (raw.has(t)) throw new Error(`ts ${t} is both raw and packed`);
      previousLast = last;
    }
  };

  const expectReads = (series: number, model: Model, random: Seeded) => {
    const all = sorted(model);
    expectPoints(points.ascending(series, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, 1e9), all, "all");
    for (let q = 0; q < 40; q++) {
      const a = all[random.int(0, Math.max(0, all.length - 1))]?.[0] ?? T0;
      const b = a + random.pick([0, 1, 999, 60_000, 3_600_000, DAY_MS]) + random.int(-2, 2);
      const [from, to] = [Math.min(a, b), Math.max(a, b)];
      const limit = random.pick([1, 2, 64, 1000, 5000, 1e9]);
      const inRange = all.filter(([t]) => t >= from && t <= to);
      const what = `[${from}, ${to}] limit ${limit}`;
      expectPoints(points.ascending(series, from, to, limit), inRange.slice(0, limit), `${what} ascending`);
      expectPoints(
        points.descending(series, from, to, limit),
        inRange.reverse().slice(0, limit),
        `${what} descending`,
      );
      const [count, maxTs] = points.countFrom(series, from);
      const after = all.filter(([t]) => t >= from);
      expect([count, maxTs]).toEqual([after.length, after.at(-1)?.[0] ?? null]);
      const raw = new Set(rawTs(series));
      const packedInRange = inRange.map(([t]) => t).filter((t) => !raw.has(t));
      expect(
        [...points.packedStamps(series, from, to)].sort((x, y) => x - y),
        `${what} packed`,
      ).toEqual(packedInRange.sort((x, y) => x - y));
    }
  };

  it("reads the same points before packing, after packing, and after late points are stored and merged", () => {
    const random = new Seeded(1313);
    const series = 1;
    const model: Model = new Map();
    // Eight hours across a UTC midnight, at 1–3 s intervals with ms jitter.
    let t = T0;
    while (t < T0 + 8 * 3_600_000) {
      insertRaw(series, model, t, Math.fround(100 + random.gaussian()));
      t += random.int(1, 3) * 1000 + random.int(-5, 5);
    }
    expectReads(series, model, random);

    // The first five hours packed: blocks, none across midnight, and the same reads.
    expect(packAll(series, T0 + 5 * 3_600_000)).toBeGreaterThan(2);
    expect(rawTs(series)[0]).toBeGreaterThanOrEqual(T0 + 5 * 3_600_000);
    expectInvariants(series);
    expectReads(series, model, random);

    // Late points inside packed spans, between them and before them: stored raw, read merged.
    for (let i = 0; i < 200; i++) {
      insertRaw(series, model, T0 - 3_600_000 + random.int(0, 6 * 3_600_000), random.int(-50, 50));
    }
    expectInvariants(series);
    expectReads(series, model, random);

    // Packing again merges them into their blocks.
    packAll(series, T0 + 5 * 3_600_000);
    expect(rawTs(series).filter((ts) => ts < T0 + 5 * 3_600_000)).toEqual([]);
    expectInvariants(series);
    expectReads(series, model, random);

    // Then the rest.
    packAll(series, Number.MAX_SAFE_INTEGER);
    expect(rawTs(series)).toEqual([]);
    expectInvariants(series);
    expectReads(series, model, random);
  });

  it("appends each packed hour of a slow series to the day's block while it has room", () => {
    const series = 2;
    const model: Model = new Map();
    for (let h = 0; h < 3; h++) {
      for (let m = 0; m < 60; m++) insertRaw(series, model, T0 + h * 3_600_000 + m * 60_000, h * 60 + m);
      packAll(series, T0 + (h + 1) * 3_600_000);
    }
    expect(blocks(series).map(([first, last, count]) => [first, last, count])).toEqual([
      [T0, T0 + 3 * 3_600_000 - 60_000, 180],
    ]);
    expectReads(series, model, new Seeded(2));
  });

  it("retention deletes whole blocks and trims the one that spans the cutoff", () => {
    const random = new Seeded(7);
    const series = 3;
    const model: Model = new Map();
    for (let t = T0; t < T0 + 30 * 3_600_000; t += 10_000)
      insertRaw(series, model, t, random.int(0, 1000) / 10);
    packAll(series, T0 + 26 * 3_600_000);
    const retention = new PackedRetention(sqlite());
    const cutoff = T0 + 7 * 3_600_000 + 12_345;
    const before = blocks(series).length;
    const { points: dropped } = retention.deleteOlderBlocks(series, cutoff);
    const trimmed = retention.trimSpanningBlock(series, cutoff);
    const expired = [...model.keys()].filter((t) => t < cutoff);
    expect(dropped + trimmed).toBe(expired.length);
    for (const t of expired) model.delete(t);
    expect(blocks(series).length).toBeLessThan(before);
    expect(blocks(series)[0]?.[0]).toBeGreaterThanOrEqual(cutoff);
    expectInvariants(series);
    expectReads(series, model, random);
  });

  it("roll-up state counts packed points: rows a crash left out of the rollups are still found", () => {
    const series = 4;
    const stmts = new RollupStatements(sqlite());
    const model: Model = new Map();
    const bucket = T0 - (T0 % BUCKET_5M_MS);
    for (let i = 0; i < 10; i++) insertRaw(series, model, bucket + i * 1000, i);
    let { state } = readRollupState(stmts, series);
    state = rollUpSeries(stmts, series, state, 1000).state;
    expect(readRollupState(stmts, series)).toEqual({ state, pending: false });
    // The bucket is packed; five later readings are committed but never rolled up (a crash).
    packAll(series, Number.MAX_SAFE_INTEGER);
    expect(rawTs(series)).toEqual([]);
    for (let i = 0; i < 5; i++) insertRaw(series, model, bucket + BUCKET_5M_MS + i * 1000, 100 + i);
    const found = readRollupState(stmts, series);
    expect(found).toEqual({ state: { rolledTo: bucket, replaceFrom: bucket }, pending: true });
    // Rebuilding from that bucket reads its packed points back: the rollups hold all 15 once.
    rollUpSeries(stmts, series, found.state, 1000);
    const rows = sqlite()
      .prepare("SELECT bucket, count, sum FROM telemetry_rollup_5m WHERE series_id = ? ORDER BY bucket")
      .raw()
      .all(series);
    expect(rows).toEqual([
      [bucket, 10, 45],
      [bucket + BUCKET_5M_MS, 5, 510],
    ]);
  });
});
