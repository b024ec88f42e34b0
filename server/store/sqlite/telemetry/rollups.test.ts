import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { batchOfInstants, type TelemetryInstant } from "../../../../shared/telemetry/batch.ts";
import { storedPoints, windowsOf } from "../../../testing/fixtures/telemetry-fixtures.ts";
import { TestServer } from "../../../testing/harness.ts";
import { sqliteConnection } from "../../../testing/sqlite-connection.ts";

const MIN = 60_000;
const HOUR_MS = 60 * MIN;

/** A fixed pseudo-random sequence in [0, 1), so that a failure can be replayed. */
function seededRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

/*
 * Rollups are derived from stored points: whatever the order, repetition and batching of writes,
 * and whatever roll-up passes ran in between, the 5-minute and hourly tables must equal an
 * aggregation of the points (raw rows and packed blocks). These tests compare the two directly.
 */
describe("telemetry rollups", () => {
  let t: TestServer;
  let projectId: string;
  beforeAll(async () => {
    t = await TestServer.start();
    projectId = await t.project();
  });
  afterAll(async () => t.stop());

  const sql = () => sqliteConnection(t.server);
  const rollups = (table: string, assetId: string) =>
    sql()
      .prepare(
        `SELECT s.variable, r.bucket, r.count, r.sum, r.min, r.max FROM ${table} r
         JOIN telemetry_series s ON s.id = r.series_id WHERE s.asset_id = ? ORDER BY s.variable, r.bucket`,
      )
      .all(assetId);
  const fromRaw = async (width: number, assetId: string) => windowsOf(await storedPoints(t, assetId), width);
  const expectConsistent = async (assetId: string) => {
    await t.server.telemetry.rollUpAll();
    expect(rollups("telemetry_rollup_5m", assetId)).toEqual(await fromRaw(5 * MIN, assetId));
    expect(rollups("telemetry_rollup_1h", assetId)).toEqual(await fromRaw(60 * MIN, assetId));
  };

  it("equal an aggregation of the stored points after shuffled, repeated, backfilled writes and passes", async () => {
    const asset = await t.asset(projectId);
    const now = t.clock.now().getTime();
    const start = now - (now % (60 * MIN)) - 3 * 60 * MIN;
    const random = seededRandom(42);
    for (let round = 0; round < 12; round++) {
      const writes: Promise<unknown>[] = [];
      for (let w = 0; w < 5; w++) {
        const items: TelemetryInstant[] = [];
        for (let i = 0; i < 20; i++) {
          // Mostly forward in time, sometimes far back (backfill), sometimes a repeat.
          const ts = start + Math.floor(random() * (round + 1) * 15 * MIN);
          items.push({
            assetId: asset,
            projectId,
            ts: random() < 0.2 ? start + (i % 7) * 1000 : ts,
            readings: [
              // Whole numbers: sums are then exact whatever the order of addition.
              { variable: "a", value: Math.round(random() * 1000) },
              { variable: random() < 0.5 ? "b" : "c", value: Math.round(random() * -1000) },
            ],
          });
        }
        writes.push(t.server.telemetry.write(batchOfInstants(items, "http")));
      }
      await Promise.all(writes);
      if (round % 3 === 1) await t.server.telemetry.rollUpAll();
    }
    await expectConsistent(asset);
  });

  it("a commit with 16 or more readings of a series rolls them up itself; mixed with small and late writes, still equal", async () => {
    const asset = await t.asset(projectId);
    const now = t.clock.now().getTime();
    const start = now - (now % (60 * MIN)) - 5 * 60 * MIN;
    const random = seededRandom(7);
    /** `count` instants `stepMs` apart from `from`, whole-number values of a and b. */
    const instants = (from: number, count: number, stepMs: number): TelemetryInstant[] =>
      Array.from({ length: count }, (_, i) => ({
        assetId: asset,
        projectId,
        ts: from + i * stepMs,
        readings: [
          { variable: "a", value: Math.round(random() * 1000) },
          { variable: "b", value: Math.round(random() * -1000) },
        ],
      }));
    // 300 readings a series: rolled up by the commit itself, no pass needed.
    await t.server.telemetry.write(batchOfInstants(instants(start + HOUR_MS, 300, 5000), "http"));
    expect(rollups("telemetry_rollup_5m", asset)).toEqual(await fromRaw(5 * MIN, asset));
    // Then big batches ahead and behind (in empty stretches and among stored readings), repeats,
    // and small commits.
    for (let round = 0; round < 6; round++) {
      await Promise.all([
        t.server.telemetry.write(batchOfInstants(instants(start + (round + 2) * HOUR_MS, 200, 7000), "http")),
        t.server.telemetry.write(batchOfInstants(instants(start + round * 600_000 + 1, 80, 3000), "http")),
        t.server.telemetry.write(batchOfInstants(instants(start + HOUR_MS, 70, 5000), "http")),
      ]);
      // A commit of its own: too few readings to roll up there, left to the pass.
      await t.server.telemetry.write(
        batchOfInstants(instants(start + round * 60_000 + 2, 5, 11_000), "http"),
      );
      if (round % 2 === 1) await expectConsistent(asset);
    }
    await expectConsistent(asset);
  });

  it("after a crash cut a roll-up short, the next start rebuilds the newest window from raw rows", async () => {
    const asset = await t.asset(projectId);
    const halfHourAgo = t.clock.now().getTime() - 30 * MIN;
    const base = halfHourAgo - (halfHourAgo % (5 * MIN));
    // Eight readings in the first window, two in the second (the newest).
    const items = Array.from({ length: 10 }, (_, i) => ({
      assetId: asset,
      projectId,
      ts: base + i * 40_000,
      readings: [{ variable: "v", value: i }],
    }));
    await t.server.telemetry.write(batchOfInstants(items, "http"));
    await t.server.telemetry.rollUpAll();
    // Simulate the crash: the newest 5-minute window lost part of its rows, the hour is stale.
    await t.server.telemetry.stop();
    sql()
      .prepare(
        `UPDATE telemetry_rollup_5m SET count = 1, sum = 0, min = 0, max = 0
         WHERE series_id = (SELECT id FROM telemetry_series WHERE asset_id = ?)
           AND bucket = (SELECT max(bucket) FROM telemetry_rollup_5m
                         WHERE series_id = (SELECT id FROM telemetry_series WHERE asset_id = ?))`,
      )
      .run(asset, asset);
    expect(rollups("telemetry_rollup_5m", asset)).not.toEqual(await fromRaw(5 * MIN, asset));
    await t.server.telemetry.start();
    await expectConsistent(asset);
  });

  it("leaves alone rollups that have no raw rows (aged out, or written by hand)", async () => {
    const asset = await t.asset(projectId);
    const old = t.clock.now().getTime() - 10 * 86_400_000;
    const bucket = old - (old % (5 * MIN));
    await t.server.telemetry.write({
      source: "http",
      series: [{ projectId, assetId: asset, variable: "v", points: [[old, 1]] }],
    });
    await t.server.telemetry.rollUpAll();
    await t.server.telemetry.stop();
    sql()
      .prepare(
        "DELETE FROM telemetry_raw WHERE series_id = (SELECT id FROM telemetry_series WHERE asset_id = ?)",
      )
      .run(asset);
    await t.server.telemetry.start();
    await t.server.telemetry.rollUpAll();
    expect(rollups("telemetry_rollup_5m", asset)).toEqual([
      { variable: "v", bucket, count: 1, sum: 1, min: 1, max: 1 },
    ]);
  });

  it("a series with raw rows but no rollups at all (e.g. crash before the first pass) is rolled up at start", async () => {
    const asset = await t.asset(projectId);
    const base = t.clock.now().getTime() - 20 * MIN;
    await t.server.telemetry.write({
      source: "http",
      series: [
        {
          projectId,
          assetId: asset,
          variable: "v",
          points: [
            [base, 2],
            [base + 6 * MIN, 4],
          ],
        },
      ],
    });
    await t.server.telemetry.rollUpAll();
    await t.server.telemetry.stop();
    sql()
      .prepare(
        "DELETE FROM telemetry_rollup_5m WHERE series_id = (SELECT id FROM telemetry_series WHERE asset_id = ?)",
      )
      .run(asset);
    sql()
      .prepare(
        "DELETE FROM telemetry_rollup_1h WHERE series_id = (SELECT id FROM telemetry_series WHERE asset_id = ?)",
      )
      .run(asset);
    await t.server.telemetry.start();
    // The start-up scan finds it without anyone touching the series.
    await expect.poll(() => rollups("telemetry_rollup_5m", asset).length, { timeout: 5_000 }).toBe(2);
    await expectConsistent(asset);
  });

  describe("readings folded by their commits", () => {
    const seriesOf = (assetId: string) =>
      (
        sql().prepare("SELECT id FROM telemetry_series WHERE asset_id = ?").get(assetId) as {
          id: number;
        }
      ).id;
    /** Three commits of five readings of "v" each, a minute apart from `from`: left to the pass. */
    const smallCommits = async (assetId: string, from: number) => {
      for (let c = 0; c < 3; c++) {
        const points = Array.from({ length: 5 }, (_, i): [number, number] => [
          from + (c * 5 + i) * MIN,
          c * 5 + i,
        ]);
        await t.server.telemetry.write({
          source: "http",
          series: [{ projectId, assetId, variable: "v", points }],
        });
      }
    };

    it("are merged by the roll-up pass without reading them back", async () => {
      const asset = await t.asset(projectId);
      const from = t.clock.now().getTime() - 60 * MIN;
      await smallCommits(asset, from);
      // The stored readings change behind the writer's back: a pass that read them back would
      // roll up the new values, one that merges what the commits folded keeps the committed ones.
      const id = seriesOf(asset);
      sql().prepare("UPDATE telemetry_raw SET value = value + 1000 WHERE series_id = ?").run(id);
      sql().prepare("UPDATE telemetry_inbox SET value = value + 1000 WHERE series_id = ?").run(id);
      await t.server.telemetry.rollUpAll();
      const rows = rollups("telemetry_rollup_5m", asset) as { count: number; sum: number }[];
      expect(rows.reduce((n, r) => n + r.count, 0)).toBe(15);
      expect(rows.reduce((n, r) => n + r.sum, 0)).toBe(105);
    });

    it("add up as a read-back would: one at a time in ts order, or read back when a commit goes back in time", async () => {
      // 1e16 + 1 rounds back to 1e16 (the spacing of doubles there is 2): the order of additions shows.
      const bucket = t.clock.now().getTime() - 60 * MIN;
      const start = bucket - (bucket % (5 * MIN));
      const write = (assetId: string, ...points: [number, number][]) =>
        t.server.telemetry.write({ source: "http", series: [{ projectId, assetId, variable: "v", points }] });
      const sumOf = async (assetId: string) => {
        await t.server.telemetry.rollUpAll();
        return (rollups("telemetry_rollup_5m", assetId) as { sum: number }[]).map((r) => r.sum);
      };
      // In order: ((1e16 + 1) + 1), not 1e16 + (1 + 1).
      const inOrder = await t.asset(projectId);
      await write(inOrder, [start + 1000, 1e16]);
      await write(inOrder, [start + 2000, 1], [start + 3000, 1]);
      expect(await sumOf(inOrder)).toEqual([1e16]);
      // A commit older than the folded readings: summed in ts order (1e16 + 1) - 1e16, not in
      // the order the commits came.
      const late = await t.asset(projectId);
      await write(late, [start + 1000, 1e16]);
      await write(late, [start + 3000, -1e16]);
      await write(late, [start + 2000, 1]);
      expect(await sumOf(late)).toEqual([0]);
    });

    it("of a deleted series are dropped with it: no rollups outlive the series", async () => {
      const asset = await t.asset(projectId);
      await smallCommits(asset, t.clock.now().getTime() - 60 * MIN);
      const id = seriesOf(asset);
      sql().prepare("DELETE FROM telemetry_series WHERE id = ?").run(id);
      await t.server.telemetry.rollUpAll();
      const orphans = sql().prepare("SELECT count(*) AS n FROM telemetry_rollup_5m WHERE series_id = ?");
      expect(orphans.get(id)).toEqual({ n: 0 });
    });

    it("are read back instead once another process has written to the database", async () => {
      const asset = await t.asset(projectId);
      const from = t.clock.now().getTime() - 60 * MIN;
      await smallCommits(asset, from);
      // An operator's sqlite3 shell adds a reading among the folded ones.
      const other = new Database(sql().name);
      try {
        other
          .prepare("INSERT INTO telemetry_raw (series_id, ts, value) VALUES (?, ?, ?)")
          .run(seriesOf(asset), from + 30_000, 500);
      } finally {
        other.close();
      }
      // The roll-up notices (PRAGMA data_version) with no write in between.
      await expectConsistent(asset);
      const rows = rollups("telemetry_rollup_5m", asset) as { count: number }[];
      expect(rows.reduce((n, r) => n + r.count, 0)).toBe(16);
    });
  });
});
