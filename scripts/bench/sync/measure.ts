import { type ChildProcess, fork } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** Shared helpers of the sync bench: percentiles, formatting, child processes, machine load. */

export const say = (line: string) => process.stdout.write(`${line}\n`);
export const fmt = (v: number, digits = 0) => v.toLocaleString("en-US", { maximumFractionDigits: digits });

export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  return (
    sorted[Math.max(0, Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN
  );
}

export const median = (values: readonly number[]) => percentile(values, 50);

/** Forks a bench child (a .ts file beside this one) with its own event loop and core. */
export function forkChild(file: string): ChildProcess {
  return fork(fileURLToPath(new URL(file, import.meta.url)), [], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
}

/**
 * Whole-machine CPU time from /proc/stat (Linux), in ms. The machine is shared: comparing it with
 * the bench processes' own CPU time shows how much of the two cores something else took.
 */
export function machineCpu(): { busyMs: number; totalMs: number } | null {
  try {
    const line = readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "";
    const ticks = line.trim().split(/\s+/).slice(1).map(Number);
    const idle = (ticks[3] ?? 0) + (ticks[4] ?? 0);
    const total = ticks.reduce((a, b) => a + b, 0);
    // USER_HZ is 100 on Linux: one tick is 10 ms.
    return { busyMs: (total - idle) * 10, totalMs: total * 10 };
  } catch {
    return null;
  }
}

/** CPU seconds one process used, from /proc/{pid}/stat (utime + stime), or null off Linux. */
export function processCpuMs(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

/** Ends a bench child: IPC disconnect lets it exit on its own (writing a --cpu-prof profile), then SIGTERM. */
export async function endChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  if (child.connected) child.disconnect();
  const timer = setTimeout(() => child.kill(), 5_000);
  await exited;
  clearTimeout(timer);
}
