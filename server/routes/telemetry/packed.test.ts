import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_BLOCK_POINTS } from "../../store/telemetry/blocks.ts";
import { SensorWalk, sensorShape } from "../../testing/codec/sensor-data.ts";
import {
  createAsset,
  createDevice,
  createProject,
  createVariable,
} from "../../testing/fixtures/report-fixtures.ts";
import { iso } from "../../testing/fixtures/telemetry-fixtures.ts";
import { TestServer } from "../../testing/harness.ts";
import { tableProbe } from "../../testing/table-probe.ts";
import { onPostgres } from "../../testing/test-database.ts";

const HOUR = 3_600_000;
const DAY = 86_400_000;
const STEP = 10_000;
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

type Item = {
  asset_id: string;
  timestamp: string;
  readings: { variable: string; value: number; unit?: string }[];
};

/**
 * One server packs its cold telemetry (runPacking up to the current hour, as
 * TELEMETRY_PACK_AFTER_HOURS=0 would), its twin never does; both get the same requests. Raw reads
 * (JSON, CSV) must answer the same bytes on both, through packing, late readings, re-packing and
 * retention, and the packing server every read (history and the report's completeness included)
 * the same bytes after packing as before.
 *
 * Rollup-derived reads (history, report) are compared between the twins to 1e-9: their sums are
 * floating-point additions whose grouping depends on when each server's roll-up pass ran.
 */
function expectClose(actual: unknown, expected: unknown, path: string): void {
  if (typeof expected === "number" && typeof actual === "number") {
    if (Math.abs(actual - expected) > 1e-9 * Math.max(1, Math.abs(expected))) {
      throw new Error(`${path}: ${actual}, expected ${expected}`);
    }
  } else if (
    expected !== null &&
    typeof expected === "object" &&
    actual !== null &&
    typeof actual === "object"
  ) {
    const keys = new Set([...Object.keys(expected), ...Object.keys(actual)]);
    for (const k of keys) {
      expectClose(
        (actual as Record<string, unknown>)[k],
        (expected as Record<string, unknown>)[k],
        `${path}.${k}`,
      );
    }
  } else if (actual !== expected) {
    throw new Error(`${path}: ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`);
  }
}

const fromRollups = (query: string) => query.includes("/history") || query.includes("/anh/reports/preview");
class Twin {
  readonly name: string;
  readonly t: TestServer;
  project = "";
  asset = "";

  constructor(name: string, t: TestServer) {
    this.name = name;
    this.t = t;
  }

  async setUp(): Promise<void> {
    this.project = await createProject(this.t, { name: "Campo", timezone: "UTC" });
    this.asset = await createAsset(this.t, this.project, "Pozo-1");
    await createVariable(this.t, await createDevice(this.t, this.asset), "pressure", STEP, "psi");
  }

  async post(items: Item[]): Promise<string> {
    const token = (await this.t.admin()).token;
    const res = await this.t.request("/api/telemetry/batch", {
      token,
      body: { items: items.map(this.#mine) },
    });
    expect(res.status, res.text).toBe(201);
    return res.text;
  }

  /** The response text of a GET, its ids replaced so that twins compare. */
  async get(path: string): Promise<string> {
    const token = (await this.t.admin()).token;
    const res = await this.t.request(
      path.replaceAll("{asset}", this.asset).replaceAll("{project}", this.project),
      {
        token,
      },
    );
    expect(res.status, `${this.name} ${path}: ${res.text.slice(0, 200)}`).toBe(200);
    if (path.includes("/anh/reports/preview")) {
      const { content } = JSON.parse(res.text) as { content: { telemetry: unknown; data_quality: unknown } };
      return JSON.stringify([content.telemetry, content.data_quality]).replace(UUID, "<id>");
    }
    return res.text.replace(UUID, "<id>");
  }

  /** The one value of a SELECT that counts. */
  async count(sql: string): Promise<number> {
    const [row] = await tableProbe(this.t.server).query(sql);
    return Number(Object.values(row ?? {})[0] ?? 0);
  }

  #mine = (item: Item): Item => ({ ...item, asset_id: this.asset });
}

/*
 * The packing twin writes its readings as raw rows and packs them (TELEMETRY_BLOCK_POINTS=0), or
 * writes a commit's new readings of a series straight into blocks and joins those (the default).
 */
describe("packed cold telemetry reads exactly as raw: raw rows, then packed", () => packedTwins("0"));
// The SQLite adapter's own: blocks written straight from commits. PostgreSQL has none (there,
// TELEMETRY_BLOCK_POINTS readings of a series roll up in their commit and stay rows), so its run
// does not declare this describe, as it leaves out the adapters' own test files.
if (!onPostgres()) {
  describe("SQLite adapter: packed cold telemetry reads exactly as raw: blocks straight from commits, then joined", () =>
    packedTwins("64"));
}

function packedTwins(blockPoints: string): void {
  const direct = blockPoints !== "0";
  let plain: Twin;
  let packing: Twin;
  let start = 0;
  let end = 0;
  /** Everything posted at the start. */
  let posted: Item[] = [];
  const queries = () => {
    // The first UTC midnight in the data; the report covers the (closed) day it ends.
    const mid = start + DAY - (start % DAY);
    const day = new Date(mid - 1).toISOString().slice(0, 10);
    return [
      "/api/telemetry/{asset}",
      "/api/telemetry/{asset}?limit=10000",
      "/api/telemetry/{asset}?limit=7&variable=flow",
      `/api/telemetry/{asset}?from=${iso(mid - 3 * HOUR + 1)}&to=${iso(mid + 2 * HOUR)}&limit=5000`,
      `/api/telemetry/{asset}?from=${iso(mid - 40 * 60_000)}&to=${iso(mid + HOUR)}&limit=50&variable=pressure&variable=sparse`,
      "/api/telemetry/{asset}?variable=sparse&limit=10000",
      "/api/telemetry/{asset}?format=csv",
      "/api/telemetry/{asset}?format=csv&limit=500",
      `/api/telemetry/{asset}?format=csv&from=${iso(mid - 5 * HOUR)}&to=${iso(mid + 90_000)}`,
      "/api/telemetry/{asset}?format=csv&variable=pressure&variable=sparse",
      `/api/telemetry/{asset}/history?from=${iso(start)}&to=${iso(end)}`,
      `/api/telemetry/{asset}/history?from=${iso(start)}&to=${iso(end)}&interval=1h`,
      `/api/telemetry/{asset}/history?from=${iso(start)}&to=${iso(end)}&interval=1d`,
      `/api/anh/reports/preview?project_id={project}&date=${day}`,
    ];
  };
  const read = async (twin: Twin) => {
    const out: string[] = [];
    for (const q of queries()) out.push(await twin.get(q));
    return out;
  };
  const expectSameReads = async () => {
    const [a, b] = [await read(plain), await read(packing)];
    queries().forEach((q, i) => {
      if (fromRollups(q)) expectClose(JSON.parse(b[i] ?? ""), JSON.parse(a[i] ?? ""), q);
      else expect(b[i] === a[i], `${q} differs`).toBe(true);
    });
    return b;
  };
  const packedRows = () => packing.count("SELECT count(*) FROM telemetry_packed");
  /** The start of the packing server's current hour: everything before it is packed. */
  const hourCutoff = () => {
    const now = packing.t.clock.now().getTime();
    return now - (now % HOUR);
  };
  const pack = () => packing.t.server.telemetry.runPacking(hourCutoff());
  /** Points not packed (raw rows, and inbox rows not moved yet) before `ts`. */
  const rawBefore = (ts: number) =>
    packing.count(
      `SELECT (SELECT count(*) FROM telemetry_raw WHERE ts < ${ts}) + (SELECT count(*) FROM telemetry_inbox WHERE ts < ${ts})`,
    );
  const both = async (items: Item[]) => {
    const [a, b] = [await plain.post(items), await packing.post(items)];
    expect(b).toBe(a);
    return JSON.parse(b) as { accepted: number; duplicates: number };
  };

  beforeAll(async () => {
    const [a, b] = await Promise.all([
      TestServer.start({ TELEMETRY_RETENTION_DAYS: "3", TELEMETRY_BLOCK_POINTS: "0" }),
      TestServer.start({ TELEMETRY_RETENTION_DAYS: "3", TELEMETRY_BLOCK_POINTS: blockPoints }),
    ]);
    plain = new Twin("plain", a);
    packing = new Twin("packing", b);
    await plain.setUp();
    await packing.setUp();
    // 30 hours every 10 s up to 5 minutes ago, across a UTC midnight: a float32 sensor, a decimal
    // gauge, arbitrary doubles and a sparse reading every 15 minutes.
    const now = Date.now();
    end = now - 5 * 60_000 - (now % STEP);
    start = end - 30 * HOUR;
    const walk = new SensorWalk(sensorShape(3), 3);
    const items: Item[] = [];
    for (let ts = start, i = 0; ts <= end; ts += STEP, i++) {
      items.push({
        asset_id: "",
        timestamp: iso(ts),
        readings: [
          { variable: "pressure", value: walk.next(), unit: "psi" },
          { variable: "temp", value: Math.round(800 + 50 * Math.sin(i / 90)) / 10, unit: "°C" },
          { variable: "flow", value: Math.PI * i },
          ...(i % 90 === 0 ? [{ variable: "sparse", value: -i }] : []),
        ],
      });
    }
    // 500 instants a request: in blocks mode, blocks of 500 points that the packer joins.
    for (let i = 0; i < items.length; i += 500) await both(items.slice(i, i + 500));
    posted = items;
  });
  afterAll(async () => {
    await Promise.all([plain.t.stop(), packing.t.stop()]);
  });

  it("answers the same bytes after packing as before (raw JSON, CSV, history, report completeness)", async () => {
    if (direct) {
      // Only the sparse variable (fewer than 64 readings a commit) went in as rows (raw, or the
      // inbox's, which it may move on as a block): the dense ones became blocks at once.
      expect(
        await packing.count(
          `SELECT count(*) FROM (SELECT series_id FROM telemetry_raw UNION ALL SELECT series_id FROM telemetry_inbox) r
           JOIN telemetry_series s ON s.id = r.series_id WHERE s.variable <> 'sparse'`,
        ),
      ).toBe(0);
      expect(await plain.count("SELECT count(*) FROM telemetry_packed")).toBe(0);
    }
    const blocksWritten = await packedRows();
    const before = await expectSameReads();
    const totals = await pack();
    const cutoff = hourCutoff();
    if (direct) {
      // The commits' blocks (500 points) are joined into blocks of up to 4,096, a day at most.
      expect(blocksWritten).toBeGreaterThan(3 * 4);
      expect(totals.rewritten).toBeGreaterThan(0);
      expect(await packedRows()).toBeLessThan(blocksWritten);
    } else {
      expect(blocksWritten).toBe(0);
      expect(totals.rawRows).toBeGreaterThan(3 * 10_000);
    }
    expect(await rawBefore(cutoff)).toBe(0);
    // 10,800 points a series over two days: several blocks per series, none across midnight.
    expect(await packedRows()).toBeGreaterThanOrEqual(3 * Math.ceil(10_800 / MAX_BLOCK_POINTS) + 1);
    const after = await expectSameReads();
    expect(after).toEqual(before);
  });

  it("stores late readings for packed hours once (duplicates of packed points are ignored), then merges them", async () => {
    const packedTs = start + 600 * STEP;
    const late: Item[] = [
      // A replay of packed points with other values: duplicates, ignored.
      {
        asset_id: "",
        timestamp: iso(packedTs),
        readings: [
          { variable: "pressure", value: 1 },
          { variable: "temp", value: 2 },
        ],
      },
      // New milliseconds inside packed blocks, and a new variable there.
      { asset_id: "", timestamp: iso(packedTs + 1), readings: [{ variable: "pressure", value: 3.25 }] },
      {
        asset_id: "",
        timestamp: iso(packedTs + 5_001),
        readings: [
          { variable: "flow", value: -0.5 },
          { variable: "late", value: 9 },
        ],
      },
      { asset_id: "", timestamp: iso(start - 60_000), readings: [{ variable: "temp", value: 70.1 }] },
    ];
    const result = await both(late);
    expect(result).toEqual({ accepted: 4, duplicates: 2 });
    // Replayed again: all duplicates, on both.
    expect(await both(late)).toEqual({ accepted: 0, duplicates: 6 });
    expect(await rawBefore(start + 30 * HOUR - 2 * HOUR)).toBe(4);
    await expectSameReads();

    await pack();
    expect(await rawBefore(start + 30 * HOUR - 2 * HOUR)).toBe(0);
    await expectSameReads();
    // And once packed, still duplicates; so is a replay of eight packed hours (an agent resending).
    expect(await both(late)).toEqual({ accepted: 0, duplicates: 6 });
    const replay = posted.slice(360, 360 + 8 * 360);
    const readings = replay.reduce((n, i) => n + i.readings.length, 0);
    expect(await both(replay.slice(0, 1500))).toMatchObject({ accepted: 0 });
    expect(await both(replay.slice(1500))).toMatchObject({ accepted: 0 });
    expect(readings).toBeGreaterThan(8000);
    await expectSameReads();
  });

  it("retention drops packed points older than the window, whole blocks and the part of the one spanning it", async () => {
    // Two days on, the three-day window cuts through the data's first day. PostgreSQL drops whole
    // day partitions and keeps the day holding the cutoff (TelemetryStore.deleteRawBefore): there
    // the cutoff is put an hour before the newest reading, so its day holds readings and the day
    // before goes. (Three days on from the wall clock, a run in the first minutes after a UTC
    // midnight had its cutoff in a day the data never reached, and no block was left.)
    const wholeDays = plain.t.server.store.backend === "postgres";
    for (const twin of [plain, packing]) {
      const now = twin.t.clock.now().getTime();
      twin.t.clock.advance(wholeDays ? end - HOUR + 3 * DAY - now : 2 * DAY);
    }
    await pack();
    expect(await packing.count("SELECT count(*) FROM telemetry_raw")).toBe(0);
    const blocksBefore = await packedRows();
    const [a, b] = [
      await plain.t.server.telemetry.runRetention(),
      await packing.t.server.telemetry.runRetention(),
    ];
    expect(b).toBe(a);
    expect(a).toBeGreaterThan(1000);
    const exact = packing.t.server.telemetry.retentionCutoff(packing.t.clock.now().getTime());
    const cutoff = wholeDays ? exact - (exact % DAY) : exact;
    expect(await packing.count(`SELECT count(*) FROM telemetry_packed WHERE first_ts < ${cutoff}`)).toBe(0);
    expect(
      await packing.count(`SELECT count(*) FROM telemetry_packed WHERE first_ts >= ${cutoff}`),
    ).toBeGreaterThan(0);
    expect(await packedRows()).toBeLessThan(blocksBefore);
    await expectSameReads();
  });
}
