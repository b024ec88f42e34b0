import { fmt, median, say } from "../sync/measure.ts";
import { checkPassed } from "./series-log.ts";
import { ratio, type SideRun, type Workload } from "./side-run.ts";

/** Other work above this (% of one core) during a measured window marks the round as disturbed. */
export const DISTURBED_PERCENT = 25;

export type WorkloadRounds = { workload: Workload; peerName: string; caudal: SideRun[]; peer: SideRun[] };

type SideSummary = {
  median: number;
  cpu: number;
  loadCpu: number;
  values: number[];
  /** Other work on the machine in each round, % of one core. */
  othersCpu: (number | null)[];
  allStored: boolean;
};

function side(runs: readonly SideRun[]): SideSummary {
  return {
    median: median(runs.map((r) => r.value)),
    cpu: median(runs.map((r) => r.cpu)),
    loadCpu: median(runs.map((r) => r.loadCpu)),
    values: runs.map((r) => r.value),
    othersCpu: runs.map((r) => r.others),
    allStored: runs.every((r) => checkPassed(r.check)),
  };
}

export const disturbed = (r: SideRun) => (r.others ?? 0) > DISTURBED_PERCENT;

function summarize(w: WorkloadRounds) {
  const caudal = side(w.caudal);
  const peer = side(w.peer);
  const perRound = w.caudal.map((c, i) => ratio(w.workload, c.value, w.peer[i]?.value ?? Number.NaN));
  return {
    unit: w.workload.unit,
    caudal,
    peer: { name: w.peerName, ...peer },
    ratio: ratio(w.workload, caudal.median, peer.median),
    ratioPerRound: perRound,
    disturbedRounds: w.caudal.filter((r, i) => disturbed(r) || (w.peer[i] ? disturbed(w.peer[i]) : false))
      .length,
  };
}

const pad = (s: string, n: number) => s.padEnd(n);
const padL = (s: string, n: number) => s.padStart(n);

/** The table of medians and ratios, then one JSON line with every figure. */
export function printSummary(all: readonly WorkloadRounds[], rounds: number): void {
  const rows = all.map((w) => ({ w, s: summarize(w) }));
  const digits = (w: Workload) => (w.higherIsBetter ? 0 : 2);
  say(
    `\n== peers: medians of ${rounds} round(s); CPU in % of one core (the side's processes, all threads) ==`,
  );
  say(
    `${pad("workload", 9)}${pad("figure", 13)}${padL("Caudal", 12)}${padL("CPU", 7)}   ${pad("peer", 16)}` +
      `${padL("figure", 12)}${padL("CPU", 7)}${padL("ratio", 9)}  check`,
  );
  for (const { w, s } of rows) {
    const d = digits(w.workload);
    const stored = s.caudal.allStored && s.peer.allStored ? "all stored" : "** POINTS MISSING **";
    say(
      `${pad(w.workload.name, 9)}${pad(w.workload.unit, 13)}${padL(fmt(s.caudal.median, d), 12)}` +
        `${padL(`${fmt(s.caudal.cpu)}%`, 7)}   ${pad(w.peerName, 16)}${padL(fmt(s.peer.median, d), 12)}` +
        `${padL(`${fmt(s.peer.cpu)}%`, 7)}${padL(`${fmt(s.ratio, 2)}×`, 9)}  ${stored}` +
        (s.disturbedRounds ? ` (${s.disturbedRounds} round(s) disturbed by other work)` : ""),
    );
  }
  say(
    "ratio: Caudal ÷ peer for points/s and messages/s, peer ÷ Caudal for bytes/point; ≥ 1.00× means Caudal is at least as good.",
  );
  say("CPU: over the measured window; for storage, while loading.");
  say(
    JSON.stringify({
      bench: "peers",
      rounds,
      workloads: Object.fromEntries(rows.map(({ w, s }) => [w.workload.name, s])),
    }),
  );
}
