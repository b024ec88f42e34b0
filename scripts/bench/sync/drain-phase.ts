import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sqliteConnection } from "../../../server/testing/sqlite-connection.ts";
import { ask } from "../ipc.ts";
import { storedPoints } from "../stored-points.ts";
import type { DrainReport, DrainRequest, PrefillReport, PrefillRequest } from "./agent-process.ts";
import { type CpuShares, CpuWindow, describeCpu } from "./cpu-window.ts";
import { startSyncBenchServer } from "./fixtures.ts";
import { endChild, fmt, forkChild, median, percentile, say } from "./measure.ts";
import type { PlcReport, SampleReport, SampleStart } from "./probe.ts";

export type DrainOptions = {
  runs: number;
  backlog: number;
  assets: number;
  variables: number;
  pollMs: number;
  probeAssets: number;
  probeMs: number;
  afterS: number;
};

type DrainRun = {
  points: number;
  prefillS: number;
  drainS: number;
  rate: number;
  during: number[];
  after: number[];
  backlogStored: number;
  liveStored: number;
  probe: SampleReport;
  cpu: CpuShares;
  report: DrainReport;
};

/**
 * One run: a fresh server (this process); the field and the latency probe (probe.ts) in one child;
 * the agent (agent-process.ts) in another. The agent's outbox is filled with `backlog` points of an
 * outage, then a real CaudalAgent starts on it: it connects, drains the backlog, and meanwhile polls
 * every device live. Drain time runs from the broker connection to the acknowledgement of the last
 * prefilled batch.
 */
async function drainRun(o: DrainOptions): Promise<DrainRun> {
  const bench = await startSyncBenchServer();
  const probe = forkChild("./probe.ts");
  const agent = forkChild("./agent-process.ts");
  const dataDir = mkdtempSync(join(tmpdir(), "caudal-bench-sync-agent-"));
  try {
    const plc = await ask<PlcReport>(probe, { type: "plc", tags: o.variables });
    const project = await bench.project("site", o.assets);
    const config = await bench.deployModbus(
      project,
      { host: "127.0.0.1", port: plc.port },
      o.variables,
      o.pollMs,
    );
    const prefill = await ask<PrefillReport>(agent, {
      type: "prefill",
      dataDir,
      config,
      assets: project.assets,
      variables: o.variables,
      points: o.backlog,
      endTs: Date.now() - 1000,
    } satisfies PrefillRequest);
    const liveFrom = Date.now();
    await ask(probe, {
      type: "sample",
      base: bench.base,
      token: bench.token,
      assets: project.assets.slice(0, o.probeAssets),
      intervalMs: o.probeMs,
      liveFrom,
    } satisfies SampleStart);
    const window = new CpuWindow({ agent, probe });
    const report = await ask<DrainReport>(agent, {
      type: "drain",
      dataDir,
      mqttUrl: bench.mqttUrl,
      projectId: project.id,
      agentToken: project.agentToken,
      lastSeq: prefill.lastSeq,
      backlogPoints: prefill.points,
      afterMs: o.afterS * 1000,
      timeoutMs: 3_600_000,
    } satisfies DrainRequest);
    const cpu = window.end();
    const samples = await ask<SampleReport>(probe, { type: "stop" });
    // Whatever was published before the agent stopped is committed by now or never will be.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const sqlite = sqliteConnection(bench.server);

    const drainS = (report.drainedAt - report.connectedAt) / 1000;
    return {
      points: prefill.points,
      prefillS: prefill.ms / 1000,
      drainS,
      rate: prefill.points / drainS,
      during: samples.samples
        .filter(([at]) => at >= report.connectedAt && at <= report.drainedAt)
        .map(([, ms]) => ms),
      after: samples.samples.filter(([at]) => at > report.drainedAt).map(([, ms]) => ms),
      backlogStored: storedPoints(sqlite, undefined, liveFrom),
      liveStored: storedPoints(sqlite, liveFrom),
      probe: samples,
      cpu,
      report,
    };
  } finally {
    await ask(probe, { type: "close" }).catch(() => {});
    await endChild(probe);
    await endChild(agent);
    await bench.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const lat = (xs: number[]) =>
  xs.length === 0
    ? "no samples"
    : `p50 ${fmt(percentile(xs, 50))} ms, p99 ${fmt(percentile(xs, 99))} ms, max ${fmt(Math.max(...xs))} ms (${xs.length} samples)`;

export async function drainPhase(o: DrainOptions): Promise<{ rate: number; p99: number; drainS: number }> {
  const series = o.assets * o.variables;
  say(
    `\n== backlog drain: ${fmt(o.backlog)} points queued in the agent's outbox (${o.assets} devices × ` +
      `${o.variables} tags, 1 Hz, ${fmt(o.backlog / series / 3600, 1)} h of outage), live polling every ` +
      `${o.pollMs} ms (${fmt((series * 1000) / o.pollMs)} points/s) during the drain ==`,
  );
  const runs: DrainRun[] = [];
  for (let i = 0; i < o.runs; i++) {
    const r = await drainRun(o);
    runs.push(r);
    const exact = r.backlogStored === r.points;
    say(
      `  run ${i + 1}: drained ${fmt(r.points)} points in ${fmt(r.drainS, 1)} s = ${fmt(r.rate)} points/s ` +
        `(outbox filled in ${fmt(r.prefillS, 1)} s); backlog rows stored ${fmt(r.backlogStored)}` +
        `${exact ? " (exact)" : "  ** BACKLOG LOST OR DUPLICATED **"}, live rows ${fmt(r.liveStored)}`,
    );
    say(`         live latency during the drain: ${lat(r.during)}; after it: ${lat(r.after)}`);
    say(`         ${describeCpu(r.cpu)}; probe ${r.probe.requests} GETs, ${r.probe.failures} failed`);
  }
  const rate = median(runs.map((r) => r.rate));
  const p99 = median(runs.map((r) => percentile(r.during, 99)));
  const drainS = median(runs.map((r) => r.drainS));
  say(
    `  median: ${fmt(rate)} points/s (target ≥ 50,000): ${rate >= 50_000 ? "met" : "MISSED"}; ` +
      `live p99 during the drain ${fmt(p99)} ms (target < 2,000): ${p99 < 2000 ? "met" : "MISSED"}; ` +
      `drain time ${fmt(drainS, 1)} s`,
  );
  return { rate, p99, drainS };
}
