import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TelemetryBatch, TelemetryPoint } from "../../../../shared/telemetry/batch.ts";
import { storedCount } from "../../../testing/fixtures/telemetry-fixtures.ts";
import { TestServer } from "../../../testing/harness.ts";
import { sqliteConnection } from "../../../testing/sqlite-connection.ts";
import { SqliteTelemetryStore } from "../telemetry-store.ts";

const SECOND = 1000;

/*
 * Readings that make no block of their own go to telemetry_inbox first and move on in bulk
 * (inbox.ts). This writer's timer is an hour, so only the tests move it: by reading, by a late
 * reading, or through rollUpAll().
 */
describe("the telemetry inbox", () => {
  let t: TestServer;
  let store: SqliteTelemetryStore;
  let projectId: string;
  let start = 0;
  beforeAll(async () => {
    t = await TestServer.start({ TELEMETRY_BLOCK_POINTS: "16" });
    projectId = await t.project();
    // The server's own writer would move the inbox every 500 ms: this one waits for the tests.
    await t.server.telemetry.stop();
    const telemetry = t.server.context.store.telemetry;
    if (!(telemetry instanceof SqliteTelemetryStore)) throw new Error("the test server runs on SQLite");
    store = telemetry;
    await startStore();
    const now = t.clock.now().getTime();
    start = now - (now % (60 * SECOND)) - 3600 * SECOND;
  });
  const startStore = () =>
    store.start(
      { blockPoints: 16, inboxMoveIntervalMs: 3600_000 },
      {
        warn: () => undefined,
        error: () => undefined,
        info: () => undefined,
        metrics: t.server.context.metrics,
        now: () => t.clock.now().getTime(),
      },
    );
  afterAll(async () => {
    await store.stop();
    await t.stop();
  });

  const count = (query: string, ...args: unknown[]) =>
    sqliteConnection(t.server)
      .prepare<unknown[], number>(query)
      .pluck()
      .get(...args) ?? 0;
  const inboxRows = (assetId: string) =>
    count(
      "SELECT count(*) FROM telemetry_inbox i JOIN telemetry_series s ON s.id = i.series_id WHERE s.asset_id = ?",
      assetId,
    );
  const rawRows = (assetId: string) =>
    count(
      "SELECT count(*) FROM telemetry_raw r JOIN telemetry_series s ON s.id = r.series_id WHERE s.asset_id = ?",
      assetId,
    );
  const blocks = (assetId: string) =>
    count(
      "SELECT count(*) FROM telemetry_packed p JOIN telemetry_series s ON s.id = p.series_id WHERE s.asset_id = ?",
      assetId,
    );
  /** Seconds `from` … `from + n - 1` after start, value = the second. */
  const seconds = (from: number, n: number): TelemetryPoint[] =>
    Array.from({ length: n }, (_, i) => [start + (from + i) * SECOND, from + i] as const);
  const write = (assetId: string, points: TelemetryPoint[]) => {
    const batch: TelemetryBatch = { source: "http", series: [{ projectId, assetId, variable: "v", points }] };
    return store.write(batch, "2030-01").then((written) => written.result);
  };
  const read = (assetId: string) => {
    const id = count("SELECT id FROM telemetry_series WHERE asset_id = ?", assetId);
    return store.pointReader(16).ascending(id, 0, Number.MAX_SAFE_INTEGER, 10_000);
  };

  it("takes readings that make no block; a read moves them first and sees every one", async () => {
    const asset = await t.asset(projectId);
    for (let k = 0; k < 3; k++)
      expect(await write(asset, seconds(k * 5, 5))).toEqual({ accepted: 5, duplicates: 0 });
    expect([inboxRows(asset), rawRows(asset), blocks(asset)]).toEqual([15, 0, 0]);
    expect(await read(asset)).toEqual(seconds(0, 15));
    // Fewer than 16 of the series: raw rows.
    expect([inboxRows(asset), rawRows(asset), blocks(asset)]).toEqual([0, 15, 0]);
  });

  it("moves 16 or more readings of a series as one packed block", async () => {
    const asset = await t.asset(projectId);
    for (let k = 0; k < 4; k++) await write(asset, seconds(k * 10, 10));
    expect(inboxRows(asset)).toBe(40);
    await store.rollUpAll();
    expect([inboxRows(asset), rawRows(asset), blocks(asset), await storedCount(t, asset)]).toEqual([
      0, 0, 1, 40,
    ]);
    expect(await read(asset)).toEqual(seconds(0, 40));
  });

  it("never makes a block over one written straight from a commit between its rows", async () => {
    const asset = await t.asset(projectId);
    await write(asset, seconds(0, 10));
    // 20 new readings: a block at once, after the 10 waiting in the inbox.
    await write(asset, seconds(10, 20));
    await write(asset, seconds(30, 10));
    expect([inboxRows(asset), blocks(asset)]).toEqual([20, 1]);
    await store.rollUpAll();
    // The 20 inbox rows span the block: raw rows, so blocks still never overlap.
    expect([inboxRows(asset), rawRows(asset), blocks(asset), await storedCount(t, asset)]).toEqual([
      0, 20, 1, 40,
    ]);
    expect(await read(asset)).toEqual(seconds(0, 40));
  });

  it("counts a reading already in the inbox as a duplicate, and stores it once", async () => {
    const asset = await t.asset(projectId);
    await write(asset, seconds(0, 10));
    expect(inboxRows(asset)).toBe(10);
    // Not newer than the series' last: the inbox is moved first, then the reading checked.
    expect(await write(asset, [[start + 5 * SECOND, 99]])).toEqual({ accepted: 0, duplicates: 1 });
    expect(await write(asset, [...seconds(8, 4)])).toEqual({ accepted: 2, duplicates: 2 });
    expect(await storedCount(t, asset)).toBe(12);
    expect(await read(asset)).toEqual(seconds(0, 12));
  });

  it("rolls up what it holds: history sees inbox rows", async () => {
    const asset = await t.asset(projectId);
    await write(asset, seconds(0, 6));
    await store.rollUpAll();
    const id = count("SELECT id FROM telemetry_series WHERE asset_id = ?", asset);
    expect(count("SELECT sum(count) FROM telemetry_rollup_5m WHERE series_id = ?", id)).toBe(6);
  });

  it("moves rows a crash left behind when it starts", async () => {
    const asset = await t.asset(projectId);
    await write(asset, seconds(0, 3));
    const id = count("SELECT id FROM telemetry_series WHERE asset_id = ?", asset);
    await store.stop();
    // As if the process died between a commit and the inbox's move.
    sqliteConnection(t.server)
      .prepare("INSERT INTO telemetry_inbox (series_id, ts, value) VALUES (?, ?, ?)")
      .run(id, start + 3 * SECOND, 3);
    expect(inboxRows(asset)).toBe(1);
    await startStore();
    expect([inboxRows(asset), rawRows(asset)]).toEqual([0, 4]);
    expect(await read(asset)).toEqual(seconds(0, 4));
  });

  it("after a restart, the packer still joins the small blocks written before it", async () => {
    const asset = await t.asset(projectId);
    // Three commits of 20 new readings: three blocks straight from ingest.
    for (let k = 0; k < 3; k++) await write(asset, seconds(k * 20, 20));
    expect(blocks(asset)).toBe(3);
    await store.stop();
    // A new process: nothing in memory says which blocks are small.
    await startStore();
    t.clock.advance(3 * 3600 * SECOND);
    const now = t.clock.now().getTime();
    const totals = await store.pack(now - (now % (3600 * SECOND)));
    expect(totals.rewritten).toBeGreaterThan(0);
    expect(blocks(asset)).toBe(1);
    expect(await read(asset)).toEqual(seconds(0, 60));
  });
});
