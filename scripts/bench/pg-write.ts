import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { Registry } from "prom-client";
import { newAsset, newProject } from "../../server/store/contract/testing/fixtures.ts";
import { connectPool } from "../../server/store/postgres/client.ts";
import { PostgresStore } from "../../server/store/postgres/postgres-store.ts";
import type { BatchSeries, TelemetryBatch } from "../../shared/telemetry/batch.ts";
import { startPostgres } from "../testing/postgres.ts";

// `npm run bench -- pg-write [--batches 60] [--points 5000] [--series 10] [--concurrency 1,2,4]
//   [--block-points 16]` (TELEMETRY_BLOCK_POINTS: a series with that many new readings in a write,
//   and nothing pending, is rolled up by the write itself)
//
// Issue 14 §2, PostgreSQL telemetry: write throughput of TelemetryStore.write on a throw-away
// PostgreSQL 15 (scripts/testing/postgres.ts: fsync and synchronous_commit off, as the tests run
// it), in batches of `points` readings over `series` series of one asset (1 Hz each, time moving
// on from batch to batch), with `concurrency` writes in flight. Each write is one transaction.
// Then a roll-up of everything, timed, and the readings counted back.

const say = (line: string) => process.stdout.write(`${line}\n`);
const fmt = (v: number, digits = 0) => v.toLocaleString("en-US", { maximumFractionDigits: digits });

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      batches: { type: "string", default: "60" },
      points: { type: "string", default: "5000" },
      series: { type: "string", default: "10" },
      concurrency: { type: "string", default: "1,2,4" },
      "block-points": { type: "string", default: "16" },
    },
  });
  const batches = Number(values.batches);
  const perBatch = Number(values.points);
  const seriesCount = Number(values.series);
  const perSeries = Math.ceil(perBatch / seriesCount);
  const pg = await startPostgres();
  try {
    for (const concurrency of values.concurrency.split(",").map(Number)) {
      const name = `bench_${concurrency}`;
      const pool = connectPool(pg.url, { max: 1 });
      await pool.query(`CREATE DATABASE ${name} ENCODING 'UTF8' LOCALE 'C' TEMPLATE template0`);
      await pool.end();
      const store = await PostgresStore.open(pg.url.replace(/\/postgres$/, `/${name}`), {
        max: concurrency + 2,
      });
      try {
        const project = await store.field.insertProject(newProject("Bench"));
        const asset = await store.field.insertAsset(newAsset(project.id, "well-1"));
        await store.telemetry.start(
          { blockPoints: Number(values["block-points"]) },
          { warn: say, error: say, info: () => undefined, metrics: new Registry(), now: () => Date.now() },
        );
        const start = Date.now() - (Date.now() % 1000) - 3 * 3600_000;
        const batchAt = (n: number): TelemetryBatch => {
          const series: BatchSeries[] = [];
          for (let s = 0; s < seriesCount; s++) {
            const points: [number, number][] = [];
            for (let k = 0; k < perSeries; k++) {
              const i = n * perSeries + k;
              points.push([start + i * 1000, Math.round((100 + s + Math.sin(i / 60) * 10) * 1000) / 1000]);
            }
            series.push({ projectId: project.id, assetId: asset.id, variable: `v${s}`, points });
          }
          return { source: "agent", series };
        };
        // A first batch makes the series and partitions; not timed.
        await store.telemetry.write(batchAt(0), "2026-01");
        const prepared = Array.from({ length: batches }, (_, i) => batchAt(i + 1));
        let next = 0;
        let stored = 0;
        const latencies: number[] = [];
        const started = performance.now();
        await Promise.all(
          Array.from({ length: concurrency }, async () => {
            for (let i = next++; i < batches; i = next++) {
              const t0 = performance.now();
              const written = await store.telemetry.write(prepared[i] as TelemetryBatch, "2026-01");
              latencies.push(performance.now() - t0);
              stored += written.result.accepted;
            }
          }),
        );
        const seconds = (performance.now() - started) / 1000;
        latencies.sort((a, b) => a - b);
        const p = (q: number) =>
          latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
        say(
          `== concurrency ${concurrency}: ${fmt(stored)} points in ${batches} batches of ${fmt(perBatch)}: ` +
            `${fmt(stored / seconds)} points/s; write p50 ${fmt(p(0.5), 1)} ms, p95 ${fmt(p(0.95), 1)} ms ` +
            `(load average ${fmt(loadavg()[0] ?? 0, 1)})`,
        );
        const rollStarted = performance.now();
        await store.telemetry.rollUpAll();
        say(`   roll-up of everything: ${fmt((performance.now() - rollStarted) / 1000, 2)} s`);
        await store.telemetry.stop();
      } finally {
        await store.close();
      }
    }
  } finally {
    await pg.stop();
  }
}
