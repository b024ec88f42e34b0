import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { serverConfigSchema } from "../../server/config.ts";
import { createLogger } from "../../server/logger.ts";
import { CaudalServer } from "../../server/server.ts";
import type { AuthContext } from "../../server/services/auth/auth-context.ts";
import { resolveAccessToken } from "../../server/services/auth/sessions.ts";
import type { Clock } from "../../server/services/context.ts";
import { productionDay } from "../../server/services/reports/production-day.ts";
import { ingestTelemetry, type TelemetryPayloadInput } from "../../server/services/telemetry/ingest.ts";
import { type BenchBackend, backendOption, openBenchBackend, parseBackend } from "./backend.ts";

// `npm run bench -- report [--assets 50] [--variables 20] [--interval 10] [--runs 3]`
//
// The daily ANH 0651 report of a project with assets × variables sampled every `interval` seconds
// for a whole Bogota production day (50 × 20 every 10 s = 8.64 M points). Each run starts a fresh
// server, loads the day through the telemetry ingest service (the code behind POST
// /api/telemetry/batch, 10,000 readings per call, a few calls in flight so that group commit
// works), then times POST /api/anh/reports/generate. The first run also deletes every raw reading
// and generates again: the telemetry section must not change, since the report reads rollups only.

const say = (line: string) => process.stdout.write(`${line}\n`);
const DAY = "2025-03-10";
const TZ = "America/Bogota";
const READINGS_PER_CALL = 10_000;
const IN_FLIGHT = 4;
const TARGET_MS = 2000;

type RunResult = {
  loadMs: number;
  points: number;
  generateMs: number[];
  bytes: number;
  series: number;
  rawFree: boolean | undefined;
};

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] ?? Number.NaN) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
};

async function api<T>(base: string, path: string, token: string | undefined, body?: unknown): Promise<T> {
  const res = await fetch(`${base}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

async function oneRun(
  backend: BenchBackend,
  opts: { assets: number; variables: number; intervalS: number; verifyRaw: boolean },
) {
  const day = productionDay(DAY, TZ);
  // The clock reads one hour after the day closed and runs on from there.
  const offset = day.endMs + 3_600_000 - Date.now();
  const clock: Clock = { now: () => new Date(Date.now() + offset) };
  const dataDir = mkdtempSync(join(tmpdir(), "caudal-bench-report-"));
  const database = await backend.database();
  const config = serverConfigSchema.parse({
    PORT: "0",
    HOST: "127.0.0.1",
    MQTT_PORT: "0",
    DATA_DIR: dataDir,
    NODE_ENV: "test",
    LOG_LEVEL: "silent",
    TOTP_SECRET_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    ...database.env,
  });
  const server = new CaudalServer({ config, logger: createLogger("silent"), clock });
  await server.start();
  // Nothing but the measured calls generates reports.
  await server.scheduler.stop();
  const base = `http://127.0.0.1:${server.port}`;
  try {
    const { token } = await api<{ token: string }>(base, "/api/auth/setup/register", undefined, {
      email: "bench@caudal.test",
      name: "Bench",
      role: "superadmin",
      password: "bench-password-1",
    });
    const resolved = await resolveAccessToken(server.context, token);
    if (!resolved.ok) throw new Error("bench token did not resolve");
    const auth: AuthContext = resolved.auth;

    const project = await api<{ id: string }>(base, "/api/edge/projects", token, {
      name: "Bench field",
      timezone: TZ,
    });
    const assetIds: string[] = [];
    const aliases = Array.from({ length: opts.variables }, (_, v) => `tag_${String(v).padStart(2, "0")}`);
    for (let a = 0; a < opts.assets; a++) {
      const asset = await api<{ id: string }>(base, "/api/edge/assets", token, {
        project_id: project.id,
        name: `Pozo-${String(a).padStart(3, "0")}`,
        asset_type: "well",
      });
      const device = await api<{ id: string }>(base, `/api/edge/assets/${asset.id}/devices`, token, {
        name: `plc-${a}`,
        protocol: "modbus_tcp",
      });
      for (const alias of aliases) {
        await api(base, `/api/edge/devices/${device.id}/variables`, token, {
          alias,
          data_type: "float",
          poll_interval_ms: opts.intervalS * 1000,
        });
      }
      assetIds.push(asset.id);
    }

    // Load: per asset, consecutive timestamps in calls of READINGS_PER_CALL readings.
    const stepMs = opts.intervalS * 1000;
    const stamps = Math.floor((day.endMs - day.startMs) / stepMs);
    const perCall = Math.max(1, Math.floor(READINGS_PER_CALL / opts.variables));
    const calls: { assetId: string; from: number; to: number }[] = [];
    for (const assetId of assetIds) {
      for (let i = 0; i < stamps; i += perCall)
        calls.push({ assetId, from: i, to: Math.min(stamps, i + perCall) });
    }
    const payloads = (c: (typeof calls)[number], a: number): TelemetryPayloadInput[] => {
      const out: TelemetryPayloadInput[] = [];
      for (let i = c.from; i < c.to; i++) {
        const ts = day.startMs + i * stepMs;
        out.push({
          asset_id: c.assetId,
          timestamp: new Date(ts).toISOString(),
          readings: aliases.map((variable, v) => ({ variable, value: 100 + a + v + Math.sin(i / 500) * 10 })),
        });
      }
      return out;
    };
    let points = 0;
    let next = 0;
    const loadStarted = performance.now();
    const worker = async () => {
      while (next < calls.length) {
        const index = next++;
        const c = calls[index];
        if (!c) break;
        const result = await ingestTelemetry(
          server.context,
          server.telemetry,
          auth,
          payloads(c, assetIds.indexOf(c.assetId)),
          () => "",
        );
        points += result.accepted;
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
    const loadMs = performance.now() - loadStarted;

    type Report = { id: string };
    type Full = { content: { telemetry: unknown; data_quality: unknown } };
    const generateMs: number[] = [];
    let lastId = "";
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      const report = await api<Report>(base, "/api/anh/reports/generate", token, {
        project_id: project.id,
        report_date: DAY,
      });
      generateMs.push(performance.now() - started);
      lastId = report.id;
    }
    const full = await api<Full & { hash_sha384: string }>(base, `/api/anh/reports/${lastId}`, token);
    const bytes = Buffer.byteLength(
      await (
        await fetch(`${base}/api/anh/reports/${lastId}/download`, {
          headers: { authorization: `Bearer ${token}` },
        })
      ).text(),
    );
    let series = 0;
    for (const assetId of assetIds) series += (await server.store.telemetry.assetSeries(assetId)).length;

    let rawFree: boolean | undefined;
    if (opts.verifyRaw) {
      // Every stored reading goes (raw rows, packed blocks, SQLite's inbox); the rollups stay.
      await server.store.telemetry.deleteRawBefore(Number.MAX_SAFE_INTEGER);
      const again = await api<Report>(base, "/api/anh/reports/generate", token, {
        project_id: project.id,
        report_date: DAY,
      });
      const after = await api<Full>(base, `/api/anh/reports/${again.id}`, token);
      rawFree =
        JSON.stringify(after.content.telemetry) === JSON.stringify(full.content.telemetry) &&
        JSON.stringify(after.content.data_quality) === JSON.stringify(full.content.data_quality);
    }
    return { loadMs, points, generateMs, bytes, series, rawFree } satisfies RunResult;
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
    await database.drop();
  }
}

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      assets: { type: "string", default: "50" },
      variables: { type: "string", default: "20" },
      interval: { type: "string", default: "10" },
      runs: { type: "string", default: "3" },
      ...backendOption,
    },
  });
  const assets = Number(values.assets);
  const variables = Number(values.variables);
  const intervalS = Number(values.interval);
  const runs = Number(values.runs);
  const backend = await openBenchBackend(parseBackend(values.backend));
  say(
    `== ANH daily report benchmark: ${assets} assets × ${variables} variables every ${intervalS} s for ${DAY} (${TZ}), ` +
      `${runs} runs (fresh server and database each; ${backend.name === "sqlite" ? "SQLite WAL" : "PostgreSQL 15"})`,
  );
  const results: RunResult[] = [];
  try {
    for (let r = 0; r < runs; r++) {
      const result = await oneRun(backend, { assets, variables, intervalS, verifyRaw: r === 0 });
      results.push(result);
      say(
        `run ${r + 1}: loaded ${result.points.toLocaleString("en-US")} points in ${(result.loadMs / 1000).toFixed(1)} s ` +
          `(${Math.round(result.points / (result.loadMs / 1000)).toLocaleString("en-US")} points/s); ` +
          `generate ${result.generateMs.map((m) => `${m.toFixed(0)} ms`).join(", ")}; ` +
          `${result.series} series, ${(result.bytes / 1024).toFixed(0)} KiB` +
          (result.rawFree === undefined ? "" : `; unchanged with every raw row deleted: ${result.rawFree}`),
      );
    }
  } finally {
    await backend.stop();
  }
  // Each run's first generation is the cold one (page cache of a freshly loaded database).
  const loadMedian = median(results.map((r) => r.loadMs));
  const firstMedian = median(results.map((r) => r.generateMs[0] ?? Number.NaN));
  const allMedian = median(results.flatMap((r) => r.generateMs));
  say(
    `median load ${(loadMedian / 1000).toFixed(1)} s; median generation ${allMedian.toFixed(0)} ms ` +
      `(first per run ${firstMedian.toFixed(0)} ms); target < ${TARGET_MS} ms: ${allMedian < TARGET_MS ? "met" : "MISSED"}`,
  );
  say(
    JSON.stringify({
      backend: backend.name,
      points: results[0]?.points ?? 0,
      load_median_s: Number((loadMedian / 1000).toFixed(2)),
      generate_median_ms: Number(allMedian.toFixed(1)),
      generate_first_median_ms: Number(firstMedian.toFixed(1)),
      report_kib: Math.round((results[0]?.bytes ?? 0) / 1024),
      rollups_only: results[0]?.rawFree ?? null,
    }),
  );
}
