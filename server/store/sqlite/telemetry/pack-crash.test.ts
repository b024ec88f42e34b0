import { spawn } from "node:child_process";
import { statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SensorWalk, sensorShape } from "../../../testing/codec/sensor-data.ts";
import { iso } from "../../../testing/fixtures/telemetry-fixtures.ts";
import { TestServer } from "../../../testing/harness.ts";
import { sqliteConnection } from "../../../testing/sqlite-connection.ts";

const HOUR = 3_600_000;
const STEP = 5_000;
const killer = fileURLToPath(new URL("../../../testing/pack-until-killed.ts", import.meta.url));

/** Runs the killer on the database; resolves with the signal that ended it. */
function packUntilKilled(file: string, cutoff: number, table: string): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [killer, file, String(cutoff), table], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    child.on("error", reject);
    child.on("exit", (code, signal) =>
      signal ? resolve(signal) : reject(new Error(`exit ${code}: ${stderr}`)),
    );
  });
}

/*
 * A packing transaction writes blocks, then deletes their raw rows. Whatever stops it between or
 * after those statements (an error, or the process killed with its pages already in the WAL), the
 * stored readings stay exactly as they were: the same answers, nothing half-packed, and the next
 * pass packs them.
 */
describe("a packing pass cut short leaves the data intact", () => {
  let t: TestServer;
  let asset = "";
  let token = "";
  let start = 0;
  const reads = async () => {
    const out: string[] = [];
    for (const q of [
      "?limit=10000",
      "?format=csv",
      `?format=csv&from=${iso(start + HOUR)}&to=${iso(start + 2 * HOUR)}`,
    ]) {
      token = (await t.admin()).token;
      const res = await t.request(`/api/telemetry/${asset}${q}`, { token });
      expect(res.status).toBe(200);
      out.push(res.text);
    }
    return out;
  };
  /** Packs everything before the current hour, as TELEMETRY_PACK_AFTER_HOURS=0 would. */
  const cutoff = () => {
    const now = t.clock.now().getTime();
    return now - (now % HOUR);
  };
  const pack = () => t.server.telemetry.runPacking(cutoff());
  const count = (sql: string) => sqliteConnection(t.server).prepare<[], number>(sql).pluck().get() ?? 0;
  const tables = () => ({
    raw: count("SELECT count(*) FROM telemetry_raw"),
    blocks: count("SELECT count(*) FROM telemetry_packed"),
    packedPoints: count("SELECT coalesce(sum(count), 0) FROM telemetry_packed"),
  });
  const post = async (items: { timestamp: string; readings: { variable: string; value: number }[] }[]) => {
    const res = await t.request("/api/telemetry/batch", {
      token: (await t.admin()).token,
      body: { items: items.map((i) => ({ asset_id: asset, ...i })) },
    });
    expect(res.status, res.text).toBe(201);
    return res.body;
  };

  beforeAll(async () => {
    // Raw rows are what it packs: readings go in as rows, never straight into blocks.
    t = await TestServer.start({ TELEMETRY_BLOCK_POINTS: "0" });
    const project = await t.project();
    asset = await t.asset(project);
    const now = t.clock.now().getTime();
    start = now - (now % HOUR) - 6 * HOUR;
    const walks = [new SensorWalk(sensorShape(1), 1), new SensorWalk(sensorShape(2), 2)];
    const items = [];
    for (let ts = start; ts < start + 5 * HOUR; ts += STEP) {
      items.push({
        timestamp: iso(ts),
        readings: walks.map((w, i) => ({ variable: `tag_${i}`, value: w.next() })),
      });
    }
    for (let i = 0; i < items.length; i += 2000) await post(items.slice(i, i + 2000));
  });
  afterAll(async () => t.stop());

  it("an error between writing blocks and deleting raw rows rolls the whole step back", async () => {
    const before = await reads();
    const stored = tables();
    const sqlite = sqliteConnection(t.server);
    sqlite.exec(
      "CREATE TEMP TRIGGER fail_pack BEFORE DELETE ON main.telemetry_raw BEGIN SELECT RAISE(ABORT, 'injected failure'); END",
    );
    try {
      await expect(pack()).rejects.toThrow("injected failure");
    } finally {
      sqlite.exec("DROP TRIGGER fail_pack");
    }
    expect(tables()).toEqual(stored);
    expect(await reads()).toEqual(before);
  });

  it("a process killed in the middle of a packing transaction (block written, or raw rows deleted) loses nothing", async () => {
    const before = await reads();
    const stored = tables();
    const file = join(t.dataDir, "caudal.db");
    for (const table of ["telemetry_packed", "telemetry_raw"]) {
      await t.restart(async () => {
        expect(await packUntilKilled(file, cutoff(), table)).toBe("SIGKILL");
        // The transaction's pages reached the WAL (uncommitted) before the kill.
        expect(statSync(`${file}-wal`).size).toBeGreaterThan(4096);
      });
      expect(tables(), table).toEqual(stored);
      expect(await reads(), table).toEqual(before);
    }
  });

  it("then packs, and a failure while merging late readings into a block keeps the old block", async () => {
    const before = await reads();
    const { raw } = tables();
    const totals = await pack();
    expect(totals.rawRows).toBe(raw);
    expect(tables()).toMatchObject({ raw: 0, packedPoints: raw });
    expect(await reads()).toEqual(before);

    expect(
      await post([{ timestamp: iso(start + HOUR + 1), readings: [{ variable: "tag_0", value: 42 }] }]),
    ).toEqual({
      accepted: 1,
      duplicates: 0,
    });
    const withLate = await reads();
    expect(withLate).not.toEqual(before);
    const stored = tables();
    expect(stored.raw).toBe(1);
    const sqlite = sqliteConnection(t.server);
    sqlite.exec(
      "CREATE TEMP TRIGGER fail_merge BEFORE DELETE ON main.telemetry_raw BEGIN SELECT RAISE(ABORT, 'injected failure'); END",
    );
    try {
      await expect(pack()).rejects.toThrow("injected failure");
    } finally {
      sqlite.exec("DROP TRIGGER fail_merge");
    }
    expect(tables()).toEqual(stored);
    expect(await reads()).toEqual(withLate);
    // The late reading is merged into the block that spans it: one block rewritten.
    expect(await pack()).toMatchObject({ rawRows: 1, blocks: 1, rewritten: 1 });
    expect(tables()).toMatchObject({ raw: 0, packedPoints: raw + 1 });
    expect(await reads()).toEqual(withLate);
  });
});
