import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, loadServerConfig } from "../../../config.ts";
import { createLogger } from "../../../logger.ts";
import { iso } from "../../../testing/fixtures/telemetry-fixtures.ts";
import { TestServer } from "../../../testing/harness.ts";
import { sqliteConnection } from "../../../testing/sqlite-connection.ts";
import { type DatabaseHandle, openDatabase } from "../client.ts";
import { YoungBlocks } from "./compact-blocks.ts";
import { type PackProgress, TelemetryPacker } from "./packer.ts";
import { RollupTracker } from "./rollup-tracker.ts";

const HOUR = 3_600_000;
const KEY = Buffer.alloc(32, 7).toString("base64");

describe("TELEMETRY_PACK_AFTER_HOURS", () => {
  it("defaults to 1, takes fractions and 0, refuses negatives and words", () => {
    const parse = (value?: string) =>
      loadServerConfig({ TOTP_SECRET_ENCRYPTION_KEY: KEY, TELEMETRY_PACK_AFTER_HOURS: value });
    expect(parse().TELEMETRY_PACK_AFTER_HOURS).toBe(1);
    expect(parse("0").TELEMETRY_PACK_AFTER_HOURS).toBe(0);
    expect(parse("2.5").TELEMETRY_PACK_AFTER_HOURS).toBe(2.5);
    for (const bad of ["-1", "soon", "10000"]) {
      expect(() => parse(bad)).toThrow(ConfigError);
      expect(() => parse(bad)).toThrow(/TELEMETRY_PACK_AFTER_HOURS/);
    }
  });
});

describe("the packing pass of a running server", () => {
  let t: TestServer;
  const lines: Record<string, unknown>[] = [];
  beforeAll(async () => {
    t = await TestServer.start(
      // Raw rows are what it packs: readings go in as rows, never straight into blocks.
      { TELEMETRY_PACK_AFTER_HOURS: "1.5", TELEMETRY_BLOCK_POINTS: "0" },
      { logger: createLogger("info", (l) => lines.push(JSON.parse(l))) },
    );
  });
  afterAll(async () => t.stop());

  it("packs whole hours ending TELEMETRY_PACK_AFTER_HOURS ago, logs what it did and counts it in /metrics", async () => {
    const now = t.clock.now().getTime();
    const cutoff = t.server.telemetry.packCutoff(now);
    expect(cutoff % HOUR).toBe(0);
    expect(now - cutoff).toBeGreaterThanOrEqual(1.5 * HOUR);
    expect(now - cutoff).toBeLessThan(2.5 * HOUR);

    const token = (await t.admin()).token;
    const asset = await t.asset(await t.project());
    const items = [];
    for (let ts = cutoff - 2 * HOUR; ts < now; ts += 60_000) {
      items.push({ asset_id: asset, timestamp: iso(ts), readings: [{ variable: "v", value: ts % 7 }] });
    }
    expect((await t.request("/api/telemetry/batch", { token, body: { items } })).status).toBe(201);
    const older = items.filter((i) => Date.parse(i.timestamp) < cutoff).length;
    // One block per UTC day those readings touch (blocks never cross midnight).
    const days = new Set(
      items.filter((i) => Date.parse(i.timestamp) < cutoff).map((i) => i.timestamp.slice(0, 10)),
    );

    const totals = await t.server.telemetry.runPacking();
    expect(totals).toMatchObject({ rawRows: older, points: older, blocks: days.size, series: 1 });
    const sqlite = sqliteConnection(t.server);
    const count = (sql: string) => sqlite.prepare<[], number>(sql).pluck().get();
    expect(count(`SELECT count(*) FROM telemetry_raw WHERE ts < ${cutoff}`)).toBe(0);
    expect(count(`SELECT count(*) FROM telemetry_raw WHERE ts >= ${cutoff}`)).toBe(items.length - older);
    expect(count("SELECT sum(count) FROM telemetry_packed")).toBe(older);

    const logged = lines.find((l) => l.msg === "telemetry packed");
    expect(logged).toMatchObject({
      level: "info",
      raw_rows: older,
      blocks: days.size,
      series: 1,
      before: iso(cutoff),
    });
    // The SQLite writer then gives the freed pages back and truncates the WAL.
    expect(lines.find((l) => l.msg === "telemetry space released")).toMatchObject({ wal_truncated: true });
    const metrics = await t.request("/metrics");
    expect(metrics.text).toContain(`caudal_telemetry_packed_points_total ${older}`);
    expect(metrics.text).toContain(`caudal_telemetry_packed_blocks_total ${days.size}`);
    expect(metrics.text).toMatch(/caudal_telemetry_pack_seconds_total \d/);

    // Nothing new to pack: the next pass writes nothing and logs nothing.
    lines.length = 0;
    expect((await t.server.telemetry.runPacking()).rawRows).toBe(0);
    expect(lines.filter((l) => l.msg === "telemetry packed")).toEqual([]);
  });
});

describe("a pass that only joins blocks written straight from ingest", () => {
  let t: TestServer;
  const lines: Record<string, unknown>[] = [];
  beforeAll(async () => {
    t = await TestServer.start(
      { TELEMETRY_BLOCK_POINTS: "16" },
      { logger: createLogger("info", (l) => lines.push(JSON.parse(l))) },
    );
  });
  afterAll(async () => t.stop());

  it("gives the freed pages back and truncates the WAL, as a pass that packs raw rows does", async () => {
    const token = (await t.admin()).token;
    const asset = await t.asset(await t.project());
    const cutoff = t.server.telemetry.packCutoff(t.clock.now().getTime());
    const start = cutoff - 2 * HOUR;
    // Two requests of 20 readings: two blocks straight from ingest, no raw row.
    for (const first of [0, 20]) {
      const items = Array.from({ length: 20 }, (_, i) => ({
        asset_id: asset,
        timestamp: iso(start + (first + i) * 60_000),
        readings: [{ variable: "v", value: first + i }],
      }));
      expect((await t.request("/api/telemetry/batch", { token, body: { items } })).status).toBe(201);
    }
    const count = (sql: string) => sqliteConnection(t.server).prepare<[], number>(sql).pluck().get();
    expect(count("SELECT count(*) FROM telemetry_packed")).toBe(2);
    lines.length = 0;
    const totals = await t.server.telemetry.runPacking(cutoff);
    expect(totals).toMatchObject({ rawRows: 0, blocks: 1, rewritten: 2 });
    expect(count("SELECT count(*) FROM telemetry_packed")).toBe(1);
    expect(lines.find((l) => l.msg === "telemetry packed")).toMatchObject({
      raw_rows: 0,
      blocks_rewritten: 2,
    });
    expect(lines.find((l) => l.msg === "telemetry space released")).toMatchObject({ wal_truncated: true });
  });
});

describe("readings written already cold", () => {
  let t: TestServer;
  const lines: Record<string, unknown>[] = [];
  beforeAll(async () => {
    t = await TestServer.start(
      { TELEMETRY_PACK_AFTER_HOURS: "1", TELEMETRY_BLOCK_POINTS: "0" },
      { logger: createLogger("info", (l) => lines.push(JSON.parse(l))) },
    );
  });
  afterAll(async () => t.stop());

  it("are packed a few seconds after such writes stop, without waiting for the next interval", async () => {
    const token = (await t.admin()).token;
    const asset = await t.asset(await t.project());
    const now = t.clock.now().getTime();
    const cutoff = t.server.telemetry.packCutoff(now);
    const stamps = [
      ...Array.from({ length: 120 }, (_, i) => cutoff - 3 * HOUR + i * 60_000),
      ...Array.from({ length: 10 }, (_, i) => now - i * 1000),
    ];
    const items = stamps.map((ts) => ({
      asset_id: asset,
      timestamp: iso(ts),
      readings: [{ variable: "v", value: 1 }],
    }));
    expect((await t.request("/api/telemetry/batch", { token, body: { items } })).status).toBe(201);
    const sqlite = sqliteConnection(t.server);
    // Raw or still in the inbox: not packed yet.
    const raw = () =>
      sqlite
        .prepare<[], number>(
          "SELECT (SELECT count(*) FROM telemetry_raw) + (SELECT count(*) FROM telemetry_inbox)",
        )
        .pluck()
        .get();
    expect(raw()).toBe(130);
    // The pass logs once it is over (blocks written, free pages released).
    const packed = () => lines.find((l) => l.msg === "telemetry packed");
    const deadline = Date.now() + 30_000;
    while (!packed() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 250));
    expect(raw()).toBe(10);
    expect(packed()).toMatchObject({ raw_rows: 120 });
  });
});

describe("TelemetryPacker", () => {
  let handle: DatabaseHandle;
  beforeAll(() => {
    handle = openDatabase(":memory:");
  });
  afterAll(() => handle.close());

  it("leaves rows the rollups do not hold yet, reports progress, and packs them once rolled up", async () => {
    const { sqlite } = handle;
    // A series row alone: its project and asset do not matter here.
    sqlite.pragma("foreign_keys = OFF");
    const series = Number(
      sqlite
        .prepare(
          "INSERT INTO telemetry_series (project_id, asset_id, variable) VALUES ('p', 'a', 'v') RETURNING id",
        )
        .pluck()
        .get(),
    );
    const insert = sqlite.prepare("INSERT INTO telemetry_raw (series_id, ts, value) VALUES (?, ?, ?)");
    const start = Date.UTC(2026, 0, 5);
    for (let i = 0; i < 10_000; i++) insert.run(series, start + i * 1000, i % 100);

    const tracker = new RollupTracker(sqlite);
    const packer = new TelemetryPacker(sqlite, tracker, new YoungBlocks());
    const never = () => false;
    expect((await packer.pack(Number.MAX_SAFE_INTEGER, never)).rawRows).toBe(0);

    await tracker.drain();
    const progress: PackProgress[] = [];
    const totals = await packer.pack(Number.MAX_SAFE_INTEGER, never, (p) => progress.push(p), 0);
    expect(totals).toMatchObject({ rawRows: 10_000, blocks: 3, series: 1 });
    expect(totals.longestStepMs).toBeGreaterThan(0);
    expect(progress.map((p) => p.rawRows)).toEqual([4096, 8192, 10_000]);
    expect(progress.at(-1)).toMatchObject({ seriesDone: 0, seriesTotal: 1 });
    expect(sqlite.prepare("SELECT count(*) FROM telemetry_raw").pluck().get()).toBe(0);
  });
});
