import { type ChildProcess, fork } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { SqliteStore } from "../../server/store/sqlite/sqlite-store.ts";
import { BUCKET_5M_MS, DAY_MS } from "../../server/store/telemetry/buckets.ts";
import { tableProbe } from "../../server/testing/table-probe.ts";
import { batchOfInstants, type TelemetryInstant } from "../../shared/telemetry/batch.ts";
import { type BenchBackend, backendOption, openBenchBackend, parseBackend } from "./backend.ts";
import { storedPointsIn, telemetryBytes } from "./stored-points.ts";
import { startBenchServer } from "./telemetry/fixtures.ts";
import type { HistoryReport, LoadReport, LoadRequest } from "./telemetry/load.ts";

// `npm run bench -- telemetry [--phase post|batch|disk|history|all] [--backend sqlite|postgres] [--runs 3] [--duration 60]
//   [--connections 64] [--assets 10] [--variables 20] [--batch-connections 4] [--batch-payloads 250]
//   [--disk-points 10000000] [--history-days 30] [--history-rounds 40]`
//
// Issue 3 targets, measured on a real server with the load generator (autocannon) forked into its
// own process on the same machine; each run starts a fresh server and DATA_DIR:
//   post    POST /api/telemetry, 20 readings per request: ≥ 5,000 req/s for 60 s, p99 < 50 ms
//   batch   POST /api/telemetry/batch, 5,000 readings per request: ≥ 300,000 points/s, all stored
//   disk    ≤ 32 bytes per stored point (raw rows and packed blocks: dbstat on SQLite,
//           pg_total_relation_size on PostgreSQL) after a 10M-point load
//   history 30 days of 1 Hz data, 10 variables: 24 h p95 ≤ 20 ms, 30 days p95 ≤ 250 ms over HTTP
//
// Load shapes. post: each request is one asset's 20 readings at a new timestamp, assets in turn
// (10 assets, 200 series); batch: each request is 250 timestamps × 20 readings of one asset.
// Every (series, timestamp) is new, so nothing is skipped as a duplicate. disk and history write
// through the ingest service itself (TelemetryService.write: group commit, raw rows, and rollups
// built by the same roll-up pass as live traffic), not over HTTP, to load millions of points in
// a minute; their measurements (dbstat; GET over HTTP from a separate process) are end to end.
// Server CPU counts every thread; "µs/request" is the event loop thread's CPU alone. With
// --backend postgres, a throw-away PostgreSQL 15 (bench profile, scripts/testing/postgres.ts) runs
// on the same machine: its CPU is not in "server".

const say = (line: string) => process.stdout.write(`${line}\n`);

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  return (
    sorted[Math.max(0, Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN
  );
}
const median = (values: number[]) => percentile(values, 50);
const fmt = (v: number, digits = 0) => v.toLocaleString("en-US", { maximumFractionDigits: digits });

function forkLoad(): ChildProcess {
  return fork(fileURLToPath(new URL("./telemetry/load.ts", import.meta.url)), [], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
}

function ask<T>(child: ChildProcess, request: LoadRequest): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: { type: string; message?: string }) => {
      child.off("message", onMessage);
      if (message.type === "error") reject(new Error(`load generator: ${message.message}`));
      else resolve(message as T);
    };
    child.on("message", onMessage);
    child.send(request);
  });
}

type Options = {
  backend: BenchBackend;
  runs: number;
  duration: number;
  connections: number;
  assets: number;
  variables: number;
  batchConnections: number;
  batchPayloads: number;
  diskPoints: number;
  historyDays: number;
  historyRounds: number;
};

type IngestRun = {
  rate: number;
  pointsPerSecond: number;
  p50: number;
  p99: number;
  serverCpu: number;
  loadCpu: number;
  /** How busy the server's event loop was, %. */
  eventLoop: number;
  /** CPU the event loop thread spent per completed request, µs (the writer thread not included). */
  loopCpuPerRequest: number;
  acknowledged: number;
  stored: number;
  failures: number;
};

async function ingestRun(mode: "post" | "batch", o: Options): Promise<IngestRun> {
  const bench = await startBenchServer(o.assets, o.backend);
  const child = forkLoad();
  try {
    const payloads = mode === "post" ? 1 : o.batchPayloads;
    const connections = mode === "post" ? o.connections : o.batchConnections;
    // Each series gets one reading per second, starting far enough back that no timestamp reaches
    // the 5-minute future limit: the warm-up and the measured run use disjoint ranges.
    const request = (startTs: number, durationS: number): LoadRequest => ({
      type: "ingest",
      mode,
      base: bench.base,
      token: bench.token,
      assets: bench.assets,
      variables: o.variables,
      payloadsPerRequest: payloads,
      startTs,
      stepMs: 1000,
      connections,
      durationS,
    });
    const now = Date.now();
    await ask<LoadReport>(child, request(now - 300 * DAY_MS, 5));
    await sleep(200);
    const before = await storedPointsIn(bench.server);
    const cpuBefore = process.cpuUsage();
    const loopCpuBefore = process.threadCpuUsage();
    const eluBefore = performance.eventLoopUtilization();
    const started = performance.now();
    const report = await ask<LoadReport>(child, request(now - 200 * DAY_MS, o.duration));
    const elu = performance.eventLoopUtilization(eluBefore).utilization;
    const elapsed = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    const loopCpu = process.threadCpuUsage(loopCpuBefore);
    await sleep(200);
    const stored = (await storedPointsIn(bench.server)) - before;
    if (report.firstError) say(`  first failure: ${report.firstError}`);
    return {
      rate: report.requestsPerSecond,
      pointsPerSecond: report.acknowledged / o.duration,
      p50: report.latency.p50,
      p99: report.latency.p99,
      serverCpu: ((cpu.user + cpu.system) / 1e6 / elapsed) * 100,
      loadCpu: report.loadCpu,
      eventLoop: elu * 100,
      loopCpuPerRequest: (loopCpu.user + loopCpu.system) / Math.max(1, report.ok),
      acknowledged: report.acknowledged,
      stored,
      failures: report.non2xx + report.errors + report.timeouts,
    };
  } finally {
    child.kill();
    await bench.stop();
  }
}

async function ingestPhase(mode: "post" | "batch", o: Options): Promise<void> {
  say(`\n== ${mode === "post" ? "POST /api/telemetry" : "POST /api/telemetry/batch"} ==`);
  const runs: IngestRun[] = [];
  for (let i = 0; i < o.runs; i++) {
    const r = await ingestRun(mode, o);
    runs.push(r);
    say(
      `  run ${i + 1}: ${fmt(r.rate)} req/s, ${fmt(r.pointsPerSecond)} points/s, p50 ${r.p50} ms, p99 ${r.p99} ms, ` +
        `CPU server ${fmt(r.serverCpu)}% (event loop busy ${fmt(r.eventLoop)}%, ${fmt(r.loopCpuPerRequest)} µs/request) ` +
        `load generator ${fmt(r.loadCpu)}%, acknowledged ${fmt(r.acknowledged)}, stored ${fmt(r.stored)}, failures ${r.failures}` +
        (r.stored < r.acknowledged ? "  ** ACKNOWLEDGED POINTS MISSING **" : ""),
    );
  }
  const rate = median(runs.map((r) => r.rate));
  const points = median(runs.map((r) => r.pointsPerSecond));
  const p99 = median(runs.map((r) => r.p99));
  if (mode === "post") {
    say(`  median: ${fmt(rate)} req/s (target ≥ 5,000), p99 ${p99} ms (target < 50)`);
  } else {
    say(`  median: ${fmt(points)} points/s (target ≥ 300,000), p99 ${p99} ms`);
  }
}

/** Writes `points` readings through the ingest service as live traffic would arrive: all series each second. */
async function diskPhase(o: Options): Promise<void> {
  say("\n== disk: bytes per stored point ==");
  const bench = await startBenchServer(o.assets, o.backend);
  try {
    const { server, projectId, assets } = bench;
    const telemetry = server.telemetry;
    const perSecond = assets.length * o.variables;
    const seconds = Math.ceil(o.diskPoints / perSecond);
    const start = Date.now() - seconds * 1000 - 60_000;
    const readings = Array.from({ length: o.variables }, (_, i) => ({
      variable: `tag_${i}`,
      value: 0,
      unit: "psi",
    }));
    const started = performance.now();
    const inFlight: Promise<unknown>[] = [];
    // 5 seconds of every series per write: the shape of a few seconds of group-committed live traffic.
    for (let s = 0; s < seconds; s += 5) {
      const items: TelemetryInstant[] = [];
      for (let k = s; k < Math.min(seconds, s + 5); k++) {
        for (const assetId of assets) {
          items.push({
            assetId,
            projectId,
            ts: start + k * 1000,
            readings: readings.map((r, i) => ({ ...r, value: Math.round(Math.sin(k / 60 + i) * 1e5) / 100 })),
          });
        }
      }
      inFlight.push(telemetry.write(batchOfInstants(items, "http")));
      if (inFlight.length >= 4) await inFlight.shift();
    }
    await Promise.all(inFlight);
    const loadS = (performance.now() - started) / 1000;
    const count = await storedPointsIn(bench.server);
    const bytes = await telemetryBytes(server);
    say(
      `  loaded ${fmt(count)} points (${assets.length} assets × ${o.variables} variables, 1 Hz) in ${fmt(loadS, 1)} s`,
    );
    say(`  stored points (raw rows and packed blocks, indexes included): ${fmt(bytes.points)} bytes`);
    say(`  → ${fmt(bytes.points / count, 2)} bytes per point (target ≤ 32)`);
    say(
      `  rollups: 5-minute ${fmt(bytes.rollup5m)} bytes, hourly ${fmt(bytes.rollup1h)} bytes (${fmt((bytes.rollup5m + bytes.rollup1h) / count, 2)} bytes per point)`,
    );
    // What a site holds once its packing job has run: raw rows for the last TELEMETRY_PACK_AFTER_HOURS
    // only. A pass that started during the load (shared by a concurrent call) stopped at its own
    // cutoff: the second one packs up to now's.
    const first = await telemetry.runPacking();
    const second = await telemetry.runPacking();
    const packing = `${fmt(first.rawRows + second.rawRows)} raw rows into ${fmt(first.blocks + second.blocks)} blocks`;
    const left = await storedPointsIn(bench.server);
    if (server.store instanceof SqliteStore) {
      const packed = await telemetryBytes(server);
      say(
        `  after packing (${packing}): ${fmt(packed.points)} bytes, ${fmt(packed.points / left, 2)} bytes per point`,
      );
    } else {
      // PostgreSQL gives the space of deleted rows back to new ones after VACUUM (autovacuum runs it
      // later), to the file system only from a table's end; VACUUM FULL counts what is live.
      const probe = tableProbe(server);
      await probe.query("VACUUM telemetry_raw, telemetry_packed");
      const vacuumed = await telemetryBytes(server);
      await probe.query("VACUUM FULL telemetry_raw, telemetry_packed");
      const live = await telemetryBytes(server);
      say(
        `  after packing (${packing}), VACUUM: ${fmt(vacuumed.points)} bytes, ${fmt(vacuumed.points / left, 2)} bytes per point; ` +
          `live (VACUUM FULL): ${fmt(live.points)} bytes, ${fmt(live.points / left, 2)} bytes per point`,
      );
    }
  } finally {
    await bench.stop();
  }
}

async function historyPhase(o: Options): Promise<void> {
  say(`\n== history: ${o.historyDays} days of 1 Hz data, 10 variables, one asset ==`);
  const variables = 10;
  const bench = await startBenchServer(1, o.backend);
  const child = forkLoad();
  try {
    const { server, projectId } = bench;
    const assetId = bench.assets[0] ?? "";
    const now = Date.now();
    const end = now - (now % BUCKET_5M_MS);
    const start = end - o.historyDays * DAY_MS;
    const seconds = (end - start) / 1000;
    const started = performance.now();
    const inFlight: Promise<unknown>[] = [];
    // Through the ingest service, 1,000 seconds of all 10 variables per write (10,000 readings).
    for (let s = 0; s < seconds; s += 1000) {
      const items: TelemetryInstant[] = [];
      for (let k = s; k < Math.min(seconds, s + 1000); k++) {
        items.push({
          assetId,
          projectId,
          ts: start + k * 1000,
          readings: Array.from({ length: variables }, (_, i) => ({
            variable: `tag_${i}`,
            value: Math.round((100 + Math.sin(k / 600 + i) * 20) * 100) / 100,
          })),
        });
      }
      inFlight.push(server.telemetry.write(batchOfInstants(items, "http")));
      if (inFlight.length >= 4) await inFlight.shift();
    }
    await Promise.all(inFlight);
    if (server.store instanceof SqliteStore) server.store.connection.pragma("wal_checkpoint(TRUNCATE)");
    say(
      `  loaded ${fmt(await storedPointsIn(bench.server))} points through the ingest service in ${fmt((performance.now() - started) / 1000, 1)} s`,
    );
    const url = (from: number, to: number) =>
      `${bench.base}/api/telemetry/${assetId}/history?from=${new Date(from).toISOString()}&to=${new Date(to).toISOString()}`;
    const day = url(end - DAY_MS, end - 1);
    const month = url(start, end - 1);
    const p95 = { day: [] as number[], month: [] as number[] };
    for (let run = 0; run < o.runs; run++) {
      const report = await ask<HistoryReport>(child, {
        type: "history",
        urls: [day, month],
        token: bench.token,
        rounds: o.historyRounds,
        warmup: 3,
      });
      const [d, m] = report.byUrl;
      if (!d || !m) throw new Error("history report incomplete");
      p95.day.push(percentile(d.ms, 95));
      p95.month.push(percentile(m.ms, 95));
      say(
        `  run ${run + 1}: 24 h (${fmt(d.items)} items, ${fmt(d.bytes / 1024)} KiB) p50 ${fmt(percentile(d.ms, 50), 1)} ms ` +
          `p95 ${fmt(percentile(d.ms, 95), 1)} ms; ${o.historyDays} days (${fmt(m.items)} items, ${fmt(m.bytes / 1024 / 1024, 1)} MiB) ` +
          `p50 ${fmt(percentile(m.ms, 50), 1)} ms p95 ${fmt(percentile(m.ms, 95), 1)} ms`,
      );
    }
    say(
      `  median p95: 24 h ${fmt(median(p95.day), 1)} ms (target ≤ 20), ${o.historyDays} days ${fmt(median(p95.month), 1)} ms (target ≤ 250)`,
    );
  } finally {
    child.kill();
    await bench.stop();
  }
}

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      phase: { type: "string", default: "all" },
      runs: { type: "string", default: "3" },
      duration: { type: "string", default: "60" },
      connections: { type: "string", default: "64" },
      assets: { type: "string", default: "10" },
      variables: { type: "string", default: "20" },
      "batch-connections": { type: "string", default: "4" },
      "batch-payloads": { type: "string", default: "250" },
      "disk-points": { type: "string", default: "10000000" },
      "history-days": { type: "string", default: "30" },
      "history-rounds": { type: "string", default: "40" },
      ...backendOption,
    },
  });
  const o: Options = {
    backend: await openBenchBackend(parseBackend(values.backend)),
    runs: Number(values.runs),
    duration: Number(values.duration),
    connections: Number(values.connections),
    assets: Number(values.assets),
    variables: Number(values.variables),
    batchConnections: Number(values["batch-connections"]),
    batchPayloads: Number(values["batch-payloads"]),
    diskPoints: Number(values["disk-points"]),
    historyDays: Number(values["history-days"]),
    historyRounds: Number(values["history-rounds"]),
  };
  const phases = values.phase === "all" ? ["post", "batch", "disk", "history"] : [values.phase];
  say(`telemetry bench: ${JSON.stringify({ ...o, backend: o.backend.name })}`);
  try {
    for (const phase of phases) {
      if (phase === "post" || phase === "batch") await ingestPhase(phase, o);
      else if (phase === "disk") await diskPhase(o);
      else if (phase === "history") await historyPhase(o);
      else throw new Error(`unknown phase ${phase} (post, batch, disk, history or all)`);
    }
  } finally {
    await o.backend.stop();
  }
}
