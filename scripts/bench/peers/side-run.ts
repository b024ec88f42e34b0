import { fmt } from "../sync/measure.ts";
import type { CpuReading } from "./process-cpu.ts";
import { type CheckResult, checkPassed } from "./series-log.ts";

/** One side's result in one round of a workload. */
export type SideRun = {
  /** The workload's figure: points/s, messages/s or bytes per point. */
  value: number;
  /** The side's processes (all of them: workers, threads), % of one core over the measured window. */
  cpu: number;
  /** The load generator (and subscriber), % of one core. */
  loadCpu: number;
  /** Busy time on the machine that was not the bench's, % of one core. */
  others: number | null;
  check: CheckResult;
  /** The round's details, for people. */
  detail: string;
};

export type Workload = {
  name: "ingest" | "mqtt" | "storage";
  /** The figure and whether Caudal should be above the peer (throughput) or below (bytes). */
  unit: string;
  higherIsBetter: boolean;
  peer: string;
  runPeer(): Promise<SideRun>;
  runCaudal(): Promise<SideRun>;
};

/** Caudal ÷ peer for throughput, peer ÷ Caudal for bytes: ≥ 1 means Caudal is at least as good. */
export const ratio = (w: Pick<Workload, "higherIsBetter">, caudal: number, peer: number) =>
  w.higherIsBetter ? caudal / peer : peer / caudal;

export function describeCheck(c: CheckResult): string {
  if (checkPassed(c)) {
    const extra = c.unacknowledged ? ` (and ${fmt(c.unacknowledged)} points of unacknowledged requests)` : "";
    return `every one of ${fmt(c.acknowledged)} acknowledged points read back once, exact${extra}`;
  }
  return (
    `** ${fmt(c.exact)} of ${fmt(c.acknowledged)} acknowledged points read back exact: ` +
    `${fmt(c.missing)} missing, ${fmt(c.wrongValue)} wrong value, ${fmt(c.duplicates)} duplicates, ` +
    `${fmt(c.unexpected)} unexpected **`
  );
}

export function describeCpu(name: string, reading: CpuReading, load: string[]): string {
  const parts = [`${name} ${fmt(reading.processes.side ?? 0)}%`];
  for (const l of load) parts.push(`${l} ${fmt(reading.processes[l] ?? 0)}%`);
  if (reading.others !== null) parts.push(`other work on the machine ${fmt(reading.others)}%`);
  return `CPU (% of one core): ${parts.join(", ")}`;
}
