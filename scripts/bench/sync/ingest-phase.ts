import { DAY_MS } from "../../../server/store/telemetry/buckets.ts";
import { sqliteConnection } from "../../../server/testing/sqlite-connection.ts";
import { ask } from "../ipc.ts";
import { storedPoints } from "../stored-points.ts";
import { type CpuShares, CpuWindow, describeCpu } from "./cpu-window.ts";
import { type BenchProject, startSyncBenchServer } from "./fixtures.ts";
import type { IngestReport, IngestRequest } from "./loader.ts";
import { endChild, fmt, forkChild, median, percentile, say } from "./measure.ts";

export type IngestOptions = {
  runs: number;
  duration: number;
  agents: number;
  assets: number;
  variables: number;
  batchPoints: number;
  window: number;
};

type IngestRun = { pointsPerSecond: number; stored: number; report: IngestReport; cpu: CpuShares };

/**
 * One run: a fresh server (this process) and the loader (its own process) playing `agents`
 * agents, each of its own project, publishing over the embedded broker; a short warm-up on an
 * older time range, then the measured run. Committed points/s = points the server acknowledged
 * (acks are published after the commit) over the time from the first publish to the last ack;
 * the raw rows in SQLite are counted to check nothing was lost or stored twice.
 */
async function ingestRun(o: IngestOptions): Promise<IngestRun> {
  const bench = await startSyncBenchServer();
  const loader = forkChild("./loader.ts");
  try {
    const projects: BenchProject[] = [];
    for (let i = 0; i < o.agents; i++) projects.push(await bench.project(`site-${i}`, o.assets));
    const request = (startTs: number, durationS: number): IngestRequest => ({
      type: "ingest",
      mqttUrl: bench.mqttUrl,
      projects,
      variables: o.variables,
      batchPoints: o.batchPoints,
      window: o.window,
      durationS,
      startTs,
    });
    const count = () => storedPoints(sqliteConnection(bench.server));
    const now = Date.now();
    await ask<IngestReport>(loader, request(now - 60 * DAY_MS, 3));
    const before = count();
    const window = new CpuWindow({ loader });
    const report = await ask<IngestReport>(loader, request(now - 30 * DAY_MS, o.duration));
    const cpu = window.end();
    return {
      pointsPerSecond: report.acceptedPoints / (report.elapsedMs / 1000),
      stored: count() - before,
      report,
      cpu,
    };
  } finally {
    await endChild(loader);
    await bench.stop();
  }
}

export async function ingestPhase(o: IngestOptions): Promise<number> {
  say(
    `\n== MQTT ingest: ${o.agents} agents (one connection and project each) × ${o.assets} assets × ` +
      `${o.variables} variables, ${fmt(o.batchPoints)}-point batches, ${o.window} awaiting ack per agent, ` +
      `${o.duration} s per run ==`,
  );
  const runs: IngestRun[] = [];
  for (let i = 0; i < o.runs; i++) {
    const r = await ingestRun(o);
    runs.push(r);
    const { report } = r;
    const exact = r.stored === report.sentPoints && report.acceptedPoints === report.sentPoints;
    say(
      `  run ${i + 1}: ${fmt(r.pointsPerSecond)} points/s committed; ${fmt(report.batches)} batches: ` +
        `sent ${fmt(report.sentPoints)}, acknowledged ${fmt(report.acceptedPoints)}, stored ${fmt(r.stored)}` +
        `${report.duplicateAcks ? `, ${report.duplicateAcks} duplicate acks` : ""}` +
        `${report.errorAcks ? `, ${report.errorAcks} error acks (${report.firstError})` : ""}` +
        `${exact ? "" : "  ** SENT, ACKNOWLEDGED AND STORED DIFFER **"}`,
    );
    say(
      `         publish → app ack p50 ${fmt(percentile(report.ackMs, 50))} ms, p99 ${fmt(percentile(report.ackMs, 99))} ms; ` +
        `server CPU ${fmt((r.cpu.serverMs * 1000) / report.acceptedPoints, 2)} µs per point; ${describeCpu(r.cpu)}`,
    );
  }
  const rate = median(runs.map((r) => r.pointsPerSecond));
  say(`  median: ${fmt(rate)} points/s committed (target ≥ 100,000): ${rate >= 100_000 ? "met" : "MISSED"}`);
  return rate;
}
