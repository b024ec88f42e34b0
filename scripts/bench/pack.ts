import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { parseArgs } from "node:util";
import Database from "better-sqlite3";
import { serverConfigSchema } from "../../server/config.ts";
import { createLogger } from "../../server/logger.ts";
import { CaudalServer } from "../../server/server.ts";
import { SensorWalk, sensorShape } from "../../server/testing/codec/sensor-data.ts";
import { sqliteConnection } from "../../server/testing/sqlite-connection.ts";
import { batchOfInstants, type TelemetryInstant } from "../../shared/telemetry/batch.ts";

// `npm run bench -- pack [--points 2000000] [--variables 50] [--noise 0.001]`
//
// Issue 13 §3, compressed cold data, on one machine:
//   1. a fresh server loads `points` readings through its ingest service: one asset, `variables`
//      float32 sensors (a slow random walk, Gaussian noise of `noise` × the level) at 1 Hz, three
//      weeks in the past; it never packs (TELEMETRY_PACK_AFTER_HOURS=9000);
//   2. it stops (a clean close: WAL checkpointed and removed) and DATA_DIR is measured;
//   3. a server with the default TELEMETRY_PACK_AFTER_HOURS starts on the same DATA_DIR and runs
//      one packing pass (runPacking), timed, with the event loop's delay sampled meanwhile;
//   4. DATA_DIR is measured with the server running, then stopped; every reading is counted back.
// Bytes are allocated bytes of the whole DATA_DIR (`du -s -B1`), as issue 13 compares them with
// InfluxDB's data directory; the per-table split is SQLite's dbstat.

const say = (line: string) => process.stdout.write(`${line}\n`);
const fmt = (v: number, digits = 0) => v.toLocaleString("en-US", { maximumFractionDigits: digits });

function config(dataDir: string, packAfterHours: string) {
  return serverConfigSchema.parse({
    PORT: "0",
    HOST: "127.0.0.1",
    MQTT_PORT: "0",
    DATA_DIR: dataDir,
    NODE_ENV: "test",
    LOG_LEVEL: "warn",
    TOTP_SECRET_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    TELEMETRY_PACK_AFTER_HOURS: packAfterHours,
    // Raw rows are what this measures the packing of: readings go in as rows, never straight into blocks.
    TELEMETRY_BLOCK_POINTS: "0",
  });
}

async function call<T>(base: string, path: string, body: unknown, token?: string): Promise<T> {
  const res = await fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`POST ${path}: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

function duBytes(dir: string): number {
  return Number(execFileSync("du", ["-s", "-B1", dir], { encoding: "utf8" }).split(/\s/)[0]);
}

/** Bytes per table (and its indexes) of a closed database, from dbstat. */
function tableBytes(file: string): Map<string, number> {
  const db = new Database(file, { readonly: true });
  try {
    const rows = db
      .prepare<[], { name: string; bytes: number }>(
        `SELECT coalesce(m.tbl_name, d.name) AS name, sum(d.pgsize) AS bytes
         FROM dbstat d LEFT JOIN sqlite_master m ON m.name = d.name GROUP BY 1`,
      )
      .all();
    const free =
      Number(db.pragma("freelist_count", { simple: true })) *
      Number(db.pragma("page_size", { simple: true }));
    return new Map([...rows.map((r): [string, number] => [r.name, r.bytes]), ["(free pages)", free]]);
  } finally {
    db.close();
  }
}

function report(label: string, dataDir: string, points: number): number {
  const total = duBytes(dataDir);
  say(`  ${label}: DATA_DIR ${fmt(total)} bytes → ${fmt(total / points, 2)} bytes per point`);
  const tables = [...tableBytes(join(dataDir, "caudal.db"))].filter(([, b]) => b > 64 * 1024);
  for (const [name, bytes] of tables.sort((a, b) => b[1] - a[1])) {
    say(`    ${name.padEnd(22)} ${fmt(bytes).padStart(14)} bytes  ${fmt(bytes / points, 3)} B/point`);
  }
  return total;
}

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      points: { type: "string", default: "2000000" },
      variables: { type: "string", default: "50" },
      noise: { type: "string", default: "0.001" },
    },
  });
  const points = Number(values.points);
  const variables = Number(values.variables);
  const noise = Number(values.noise);
  const dataDir = mkdtempSync(join(tmpdir(), "caudal-bench-pack-"));
  try {
    say(`== pack: ${fmt(points)} points, ${variables} float32 sensors at 1 Hz, noise ${noise} of level ==`);
    let server = new CaudalServer({ config: config(dataDir, "9000"), logger: createLogger("warn") });
    await server.start();
    const base = `http://127.0.0.1:${server.port}`;
    const { token } = await call<{ token: string }>(base, "/api/auth/setup/register", {
      email: "bench@caudal.test",
      name: "Bench",
      password: "bench-password-1",
    });
    const { id: projectId } = await call<{ id: string }>(
      base,
      "/api/edge/projects",
      { name: "Bench" },
      token,
    );
    const { id: assetId } = await call<{ id: string }>(
      base,
      "/api/edge/assets",
      { project_id: projectId, name: "well-1", asset_type: "well" },
      token,
    );

    const seconds = Math.ceil(points / variables);
    const now = Date.now();
    const start = now - (now % 1000) - 21 * 86_400_000;
    const walks = Array.from({ length: variables }, (_, i) => {
      const shape = sensorShape(i);
      return new SensorWalk({ ...shape, noise: shape.level * noise }, i + 1);
    });
    const loadStarted = performance.now();
    const inFlight: Promise<unknown>[] = [];
    for (let s = 0; s < seconds; s += 100) {
      const items: TelemetryInstant[] = [];
      for (let k = s; k < Math.min(seconds, s + 100); k++) {
        items.push({
          assetId,
          projectId,
          ts: start + k * 1000,
          readings: walks.map((w, i) => ({ variable: `tag_${i}`, value: w.next(), unit: "psi" })),
        });
      }
      inFlight.push(server.telemetry.write(batchOfInstants(items, "http")));
      if (inFlight.length >= 4) await inFlight.shift();
    }
    await Promise.all(inFlight);
    await server.telemetry.rollUpAll();
    const stored = seconds * variables;
    say(`  loaded ${fmt(stored)} points in ${fmt((performance.now() - loadStarted) / 1000, 1)} s`);
    await server.stop();
    const before = report("raw", dataDir, stored);

    server = new CaudalServer({ config: config(dataDir, "1"), logger: createLogger("warn") });
    await server.start();
    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    const packStarted = performance.now();
    const totals = await server.telemetry.runPacking();
    const passSeconds = (performance.now() - packStarted) / 1000;
    delay.disable();
    say(
      `  packed ${fmt(totals.rawRows)} raw rows into ${fmt(totals.blocks)} blocks (${fmt(totals.bytes / totals.points, 3)} B/point of block data) in ${fmt(totals.seconds, 1)} s: ${fmt(totals.rawRows / totals.seconds)} points/s (${fmt(passSeconds, 1)} s with the roll-up check and the release of free pages)`,
    );
    say(
      `  event loop delay while packing: p50 ${fmt(delay.percentile(50) / 1e6, 1)} ms, p99 ${fmt(delay.percentile(99) / 1e6, 1)} ms, max ${fmt(delay.max / 1e6, 1)} ms; longest packing transaction ${fmt(totals.longestStepMs, 1)} ms`,
    );
    const sqlite = sqliteConnection(server);
    const count = (sql: string) => Number(sqlite.prepare(sql).pluck().get());
    const kept =
      count("SELECT coalesce(sum(count), 0) FROM telemetry_packed") +
      count("SELECT count(*) FROM telemetry_raw") +
      count("SELECT count(*) FROM telemetry_inbox");
    if (kept !== stored) throw new Error(`${kept} points stored after packing, ${stored} before`);
    const running = duBytes(dataDir);
    say(
      `  packed, server still running: DATA_DIR ${fmt(running)} bytes → ${fmt(running / stored, 2)} bytes per point`,
    );
    await server.stop();
    const after = report("packed", dataDir, stored);
    say(
      `  DATA_DIR: ${fmt(before / stored, 2)} → ${fmt(after / stored, 2)} bytes per point (${fmt(before / after, 1)}× smaller)`,
    );
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
