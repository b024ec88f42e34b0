import type { ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import type { BenchBackend } from "../backend.ts";
import { ask } from "../ipc.ts";
import { fmt } from "../sync/measure.ts";
import { CaudalSide } from "./caudal.ts";
import { withChild } from "./children.ts";
import type { HttpLoadReport, HttpLoadRequest, HttpTarget } from "./http-load.ts";
import { DATABASE, InfluxPeer } from "./influxdb.ts";
import type { VerifyReport } from "./load.ts";
import { CpuMeter } from "./process-cpu.ts";
import type { ReadSource } from "./read-back.ts";
import type { SeriesSpec } from "./series-log.ts";
import { describeCheck, describeCpu, type SideRun, type Workload } from "./side-run.ts";

export type IngestOptions = {
  durationS: number;
  warmupS: number;
  pointsPerRequest: number;
  connections: number;
  caudalEnv: Record<string, string>;
  /** The engine Caudal runs on (`--backend`). */
  backend: BenchBackend;
};

const DAY_MS = 86_400_000;
const VARIABLES = 10;

/** Whole seconds, `days` back: line protocol is sent with precision=s. */
const daysAgo = (days: number) => Math.floor((Date.now() - days * DAY_MS) / 1000) * 1000;

type Side = { pid: number; target: HttpTarget; source: () => Promise<ReadSource>; assetId: string };

/**
 * One round on one side: a warm-up on an older time range, then `durationS` measured, then every
 * acknowledged point read back. The side's CPU covers the measured window only.
 */
async function round(name: string, side: Side, o: IngestOptions): Promise<SideRun> {
  return withChild("./load.ts", async (loader: ChildProcess) => {
    const spec = (seed: number, startMs: number): SeriesSpec => ({
      assetId: side.assetId,
      seed,
      variables: VARIABLES,
      startMs,
      blockSeconds: o.pointsPerRequest / VARIABLES,
    });
    const load = (s: SeriesSpec, durationS: number): HttpLoadRequest => ({
      type: "http",
      target: side.target,
      spec: s,
      connections: o.connections,
      until: { durationS },
    });
    await ask<HttpLoadReport>(loader, load(spec(7, daysAgo(300)), o.warmupS));
    const meter = new CpuMeter({ side: side.pid, loader: loader.pid });
    const report = await ask<HttpLoadReport>(loader, load(spec(11, daysAgo(200)), o.durationS));
    const cpu = meter.read();
    const verify = await ask<VerifyReport>(loader, { type: "verify", source: await side.source() });
    const value = report.acknowledgedPoints / (report.elapsedMs / 1000);
    const failures = report.failed ? `, ${report.failed} failed (${report.firstError})` : "";
    return {
      value,
      cpu: cpu.processes.side ?? 0,
      loadCpu: cpu.processes.loader ?? 0,
      others: cpu.others,
      check: verify.check,
      detail:
        `${fmt(value)} points/s: ${fmt(report.requests)} requests in ${fmt(report.elapsedMs / 1000, 1)} s` +
        `${failures}, p50 ${fmt(report.p50Ms)} ms, p99 ${fmt(report.p99Ms)} ms; ${describeCpu(name, cpu, ["loader"])}; ` +
        `${describeCheck(verify.check)} (read back in ${fmt(verify.readS, 1)} s)`,
    };
  });
}

/**
 * HTTP batch ingest: one asset × 10 variables at 1 Hz, `pointsPerRequest` points per request (500
 * seconds × 10 variables), `connections` connections, closed loop. Caudal: POST
 * /api/telemetry/batch (JSON, an operador's token); InfluxDB: POST /write, line protocol with one
 * line per second and a field per variable, with its shipped configuration.
 */
export function ingestWorkload(o: IngestOptions): Workload {
  return {
    name: "ingest",
    unit: "points/s",
    higherIsBetter: true,
    peer: "InfluxDB",
    runPeer: async () => {
      const influx = await InfluxPeer.start({ coldCompaction: false });
      try {
        const source: ReadSource = { kind: "influxdb", base: influx.base, db: DATABASE };
        const target: HttpTarget = { kind: "influxdb", base: influx.base, db: DATABASE };
        return await round(
          "influxd",
          { pid: influx.program.pid, target, source: async () => source, assetId: randomUUID() },
          o,
        );
      } finally {
        await influx.stop();
      }
    },
    runCaudal: async () => {
      const caudal = await CaudalSide.start(o.caudalEnv, o.backend);
      try {
        const { projectId, assetId } = await caudal.project("Bench field");
        await caudal.addOperador([projectId]);
        const target: HttpTarget = { kind: "caudal", base: caudal.base, token: await caudal.operadorToken() };
        const source = async (): Promise<ReadSource> => ({
          kind: "caudal",
          base: caudal.base,
          token: await caudal.operadorToken(),
        });
        return await round("caudal-server", { pid: caudal.program.pid, target, source, assetId }, o);
      } finally {
        await caudal.stop();
      }
    },
  };
}
