import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, loadServerConfig } from "../../../config.ts";
import {
  type Field,
  field,
  iso,
  type Payload,
  postBatch,
  type StoredPayload,
  storedCount,
} from "../../../testing/fixtures/telemetry-fixtures.ts";
import { TestServer } from "../../../testing/harness.ts";
import { sqliteConnection } from "../../../testing/sqlite-connection.ts";

const KEY = Buffer.alloc(32, 7).toString("base64");
const SECOND = 1000;

describe("TELEMETRY_BLOCK_POINTS", () => {
  const parse = (value?: string) =>
    loadServerConfig({
      TOTP_SECRET_ENCRYPTION_KEY: KEY,
      ...(value === undefined ? {} : { TELEMETRY_BLOCK_POINTS: value }),
    });
  it("defaults to 16; 0 turns block writes off; anything else but a whole number up to 4096 is refused", () => {
    expect(parse().TELEMETRY_BLOCK_POINTS).toBe(16);
    expect(parse("0").TELEMETRY_BLOCK_POINTS).toBe(0);
    expect(parse("4096").TELEMETRY_BLOCK_POINTS).toBe(4096);
    for (const bad of ["-1", "4097", "1.5", "many"]) {
      expect(() => parse(bad)).toThrow(ConfigError);
      expect(() => parse(bad)).toThrow(/TELEMETRY_BLOCK_POINTS/);
    }
  });
});

/*
 * A commit's readings of one series, 16 or more (TELEMETRY_BLOCK_POINTS), are written as packed blocks when no stored
 * point can lie among them: newer than the series' last reading, or older ones in a stretch that
 * holds none. The rest go in as raw rows. Either way each millisecond is stored once.
 */
describe("readings written straight into packed blocks", () => {
  let t: TestServer;
  let f: Field;
  let asset: string;
  let start = 0;
  beforeAll(async () => {
    t = await TestServer.start();
    f = await field(t);
    asset = await t.asset(f.projectId);
    const now = t.clock.now().getTime();
    start = now - (now % (60 * SECOND)) - 2 * 3600 * SECOND;
  });
  afterAll(async () => t.stop());

  const sql = (query: string) => sqliteConnection(t.server).prepare<[], number>(query).pluck().get() ?? 0;
  /** Rows not packed: raw rows and inbox rows (those newer than their series' last, a few here). */
  const rawRows = () =>
    sql("SELECT (SELECT count(*) FROM telemetry_raw) + (SELECT count(*) FROM telemetry_inbox)");
  const blocks = () => sql("SELECT count(*) FROM telemetry_packed");
  /** `count` instants a second apart from `first` (s after start, + offsetMs), of variables a and b. */
  const instants = (first: number, count: number, value = (s: number) => s, offsetMs = 0): Payload[] =>
    Array.from({ length: count }, (_, k) => ({
      asset_id: asset,
      timestamp: iso(start + (first + k) * SECOND + offsetMs),
      readings: [
        { variable: "a", value: value(first + k) },
        { variable: "b", value: -value(first + k) / 4 },
      ],
    }));
  const stored = async () => {
    const res = await t.request<StoredPayload[]>(
      `/api/telemetry/${asset}?limit=10000&from=${iso(start - 1)}`,
      {
        token: f.operador,
      },
    );
    expect(res.status).toBe(200);
    return res.body
      .flatMap((p) => p.readings.map((r) => [Date.parse(p.timestamp) - start, r.variable, r.value] as const))
      .sort((x, y) => x[0] - y[0] || x[1].localeCompare(y[1]));
  };

  it("new readings: one block per series, no raw rows; a replay is all duplicates", async () => {
    const later = instants(1000, 100);
    expect((await postBatch(t, f.operador, later)).body).toEqual({ accepted: 200, duplicates: 0 });
    expect([blocks(), rawRows()]).toEqual([2, 0]);
    expect((await postBatch(t, f.operador, later)).body).toEqual({ accepted: 0, duplicates: 200 });
    expect([blocks(), rawRows(), await storedCount(t, asset)]).toEqual([2, 0, 200]);
  });

  it("older readings in an empty stretch (a batch that overtook this one): blocks too", async () => {
    expect((await postBatch(t, f.operador, instants(800, 100))).body).toEqual({
      accepted: 200,
      duplicates: 0,
    });
    expect([blocks(), rawRows()]).toEqual([4, 0]);
  });

  it("older readings among stored ones: raw rows, each millisecond once, and reads see every point", async () => {
    // Seconds 850–949 straddle the block of 800–899 (duplicates there) and the empty 900–949.
    const overlapping = instants(850, 100, (s) => s + 0.5);
    expect((await postBatch(t, f.operador, overlapping)).body).toEqual({ accepted: 100, duplicates: 100 });
    expect([blocks(), rawRows()]).toEqual([4, 100]);
    // Half a second after each stored second inside the first block: new milliseconds, raw.
    const between = instants(1000, 100, (s) => s, 500);
    expect((await postBatch(t, f.operador, between)).body).toEqual({ accepted: 200, duplicates: 0 });
    expect([blocks(), rawRows(), await storedCount(t, asset)]).toEqual([4, 300, 700]);

    const expected: (readonly [number, string, number])[] = [];
    const add = (ms: number, s: number) => expected.push([ms, "a", s], [ms, "b", -s / 4]);
    for (let s = 800; s < 900; s++) add(s * SECOND, s);
    for (let s = 900; s < 950; s++) add(s * SECOND, s + 0.5);
    for (let s = 1000; s < 1100; s++) {
      add(s * SECOND, s);
      add(s * SECOND + 500, s);
    }
    expected.sort((x, y) => x[0] - y[0] || x[1].localeCompare(y[1]));
    expect(await stored()).toEqual(expected);
  });

  it("the packer joins the small blocks of a cold day into one", async () => {
    t.clock.advance(3 * 3600 * SECOND);
    const now = t.clock.now().getTime();
    const totals = await t.server.telemetry.runPacking(now - (now % (3600 * SECOND)));
    expect(totals.rewritten).toBeGreaterThan(0);
    // Raw rows merged in; per series, the 800–949 and 1000–1099 stretches are one block each or one.
    expect(rawRows()).toBe(0);
    expect(blocks()).toBeLessThanOrEqual(2 * 2);
    expect(await storedCount(t, asset)).toBe(700);
  });
});
