import type { ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { ask } from "../ipc.ts";
import { fmt } from "../sync/measure.ts";
import { CaudalSide } from "./caudal.ts";
import { withChild } from "./children.ts";
import { allocatedBytes, largestEntries, settledBytes } from "./disk-usage.ts";
import type { HttpLoadReport, HttpTarget } from "./http-load.ts";
import { DATABASE, InfluxPeer } from "./influxdb.ts";
import type { VerifyReport } from "./load.ts";
import { CpuMeter } from "./process-cpu.ts";
import type { ReadSource } from "./read-back.ts";
import { describeCheck, describeCpu, type SideRun, type Workload } from "./side-run.ts";

export type StorageOptions = {
  points: number;
  /** Settled: the data directory's allocated size unchanged this long (s). */
  quietS: number;
  /** Give up waiting for it after this long (s). */
  maxSettleS: number;
  /** More Caudal server settings (`--caudal-env KEY=VALUE`). */
  caudalEnv: Record<string, string>;
};

const VARIABLES = 50;
/** 100 seconds × 50 variables: 5,000 points per request, as in the ingest workload. */
const BLOCK_SECONDS = 100;
const CONNECTIONS = 4;
const WEEK_MS = 7 * 86_400_000;

type Side = {
  pid: number;
  dataDir: string;
  target: HttpTarget;
  source: () => Promise<ReadSource>;
  assetId: string;
};

/**
 * Loads `points` points (one asset × 50 variables at 1 Hz, starting 6 weeks ago) over HTTP as the
 * ingest workload does, waits until the data directory has settled, measures its allocated bytes
 * and reads every point back. Bytes per point = the whole directory ÷ the points read back exact.
 */
async function round(name: string, side: Side, o: StorageOptions): Promise<SideRun> {
  return withChild("./load.ts", async (loader: ChildProcess) => {
    const emptyBytes = allocatedBytes(side.dataDir);
    const blocks = Math.ceil(o.points / (VARIABLES * BLOCK_SECONDS));
    const startMs = Math.floor((Date.now() - 6 * WEEK_MS) / 1000) * 1000;
    const meter = new CpuMeter({ side: side.pid, loader: loader.pid });
    const report = await ask<HttpLoadReport>(loader, {
      type: "http",
      target: side.target,
      spec: { assetId: side.assetId, seed: 301, variables: VARIABLES, startMs, blockSeconds: BLOCK_SECONDS },
      connections: CONNECTIONS,
      until: { blocks },
    });
    const cpu = meter.read();
    const settled = await settledBytes(side.dataDir, o.quietS, o.maxSettleS);
    const where = largestEntries(side.dataDir)
      .map(([entry, bytes]) => `${entry} ${fmt(bytes / 1e6, 1)} MB`)
      .join(", ");
    const verify = await ask<VerifyReport>(loader, { type: "verify", source: await side.source() });
    const value = settled.bytes / Math.max(1, verify.check.exact);
    const failures = report.failed ? `, ${report.failed} requests failed (${report.firstError})` : "";
    return {
      value,
      cpu: cpu.processes.side ?? 0,
      loadCpu: cpu.processes.loader ?? 0,
      others: cpu.others,
      check: verify.check,
      detail:
        `${fmt(value, 2)} bytes per point: ${fmt(settled.bytes)} bytes allocated (${where}; empty: ${fmt(emptyBytes)}) ` +
        `${settled.settled ? `settled after ${fmt(settled.waitedS)} s` : `** still changing after ${fmt(settled.waitedS)} s **`}; ` +
        `loaded at ${fmt(report.acknowledgedPoints / (report.elapsedMs / 1000))} points/s${failures}, ` +
        `${describeCpu(name, cpu, ["loader"])} while loading; ${describeCheck(verify.check)} ` +
        `(read back in ${fmt(verify.readS, 1)} s)`,
    };
  });
}

/**
 * Storage: `points` points of realistic float32 sensor data (SensorWalk), one asset × 50 variables
 * at 1 Hz, timestamps weeks in the past; allocated bytes of the whole data directory per point
 * once it has settled. InfluxDB gets its best case: cold shards snapshotted and fully compacted 1 s
 * after their last write. Caudal runs its defaults plus `caudalEnv`.
 */
export function storageWorkload(o: StorageOptions): Workload {
  return {
    name: "storage",
    unit: "bytes/point",
    higherIsBetter: false,
    peer: "InfluxDB",
    runPeer: async () => {
      const influx = await InfluxPeer.start({ coldCompaction: true });
      try {
        const source: ReadSource = { kind: "influxdb", base: influx.base, db: DATABASE };
        const side: Side = {
          pid: influx.program.pid,
          dataDir: influx.dataDir,
          target: { kind: "influxdb", base: influx.base, db: DATABASE },
          source: async () => source,
          assetId: randomUUID(),
        };
        return await round("influxd", side, o);
      } finally {
        await influx.stop();
      }
    },
    runCaudal: async () => {
      const caudal = await CaudalSide.start(o.caudalEnv);
      try {
        const { projectId, assetId } = await caudal.project("Bench field");
        await caudal.addOperador([projectId]);
        const side: Side = {
          pid: caudal.program.pid,
          dataDir: caudal.dataDir,
          target: { kind: "caudal", base: caudal.base, token: await caudal.operadorToken() },
          source: async () => ({ kind: "caudal", base: caudal.base, token: await caudal.operadorToken() }),
          assetId,
        };
        return await round("caudal-server", side, o);
      } finally {
        await caudal.stop();
      }
    },
  };
}
