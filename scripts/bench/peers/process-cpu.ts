import { readdirSync, readFileSync } from "node:fs";
import { machineCpu } from "../sync/measure.ts";

/** USER_HZ: /proc/<pid>/stat counts CPU in ticks of 10 ms on Linux. */
const TICK_MS = 10;

type Stat = { ppid: number; ms: number };

/** utime + stime + cutime + cstime (so workers that already exited still count), or null. */
function readStat(pid: number): Stat | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after "(comm)": state ppid … utime(14) stime(15) cutime(16) cstime(17), 1-based.
    const f = text.slice(text.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
    return { ppid: Number(f[1]), ms: ticks * TICK_MS };
  } catch {
    return null;
  }
}

/**
 * CPU time of a process and all its descendants, ms, from /proc. A server that forks HTTP workers
 * (node:cluster) or a multi-threaded peer (influxd) is counted whole, whatever its shape.
 */
export function treeCpuMs(root: number): number {
  const stats = new Map<number, Stat>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readStat(Number(name));
    if (stat) stats.set(Number(name), stat);
  }
  const children = new Map<number, number[]>();
  for (const [pid, stat] of stats) children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), pid]);
  let total = 0;
  const queue = [root];
  for (let pid = queue.pop(); pid !== undefined; pid = queue.pop()) {
    total += stats.get(pid)?.ms ?? 0;
    queue.push(...(children.get(pid) ?? []));
  }
  return total;
}

export type CpuReading = {
  /** Percent of one core over the window, by name (e.g. caudal, loader, subscriber). */
  processes: Record<string, number>;
  /** The whole machine's busy time, % of one core (200% = both cores of a 2-core machine). */
  machine: number | null;
  /** Busy time that was none of ours: other work sharing the machine. */
  others: number | null;
};

/** CPU of named process trees over a window, and of the rest of the machine. */
export class CpuMeter {
  readonly #pids: Record<string, number>;
  readonly #start: Record<string, number> = {};
  readonly #machine = machineCpu();
  readonly #started = performance.now();

  constructor(pids: Record<string, number | undefined>) {
    this.#pids = Object.fromEntries(
      Object.entries(pids).filter((e): e is [string, number] => e[1] !== undefined),
    );
    for (const [name, pid] of Object.entries(this.#pids)) this.#start[name] = treeCpuMs(pid);
  }

  read(): CpuReading {
    const elapsed = performance.now() - this.#started;
    const processes: Record<string, number> = {};
    let ours = 0;
    for (const [name, pid] of Object.entries(this.#pids)) {
      const used = treeCpuMs(pid) - (this.#start[name] ?? 0);
      processes[name] = (used / elapsed) * 100;
      ours += used;
    }
    const m1 = machineCpu();
    const machineMs = this.#machine && m1 ? m1.busyMs - this.#machine.busyMs : null;
    return {
      processes,
      machine: machineMs === null ? null : (machineMs / elapsed) * 100,
      others: machineMs === null ? null : (Math.max(0, machineMs - ours) / elapsed) * 100,
    };
  }
}
