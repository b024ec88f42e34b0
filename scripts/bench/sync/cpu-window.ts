import type { ChildProcess } from "node:child_process";
import { machineCpu, processCpuMs } from "./measure.ts";

export type CpuShares = {
  /** Percent of one core over the window. */
  server: number;
  /** The server's CPU time over the window, ms (every thread of this process). */
  serverMs: number;
  children: Record<string, number>;
  /** The whole machine's busy time (both cores), and what was not ours. */
  machine: number | null;
  others: number | null;
};

/**
 * CPU use of the bench's processes over a window: the server (this process), each child, and the
 * rest of the machine, which is shared with other work; all in percent of one core.
 */
export class CpuWindow {
  readonly #children: Record<string, ChildProcess>;
  readonly #started = performance.now();
  readonly #server = process.cpuUsage();
  readonly #childStart: Record<string, number | null> = {};
  readonly #machine = machineCpu();

  constructor(children: Record<string, ChildProcess>) {
    this.#children = children;
    for (const [name, child] of Object.entries(children)) this.#childStart[name] = processCpuMs(child.pid);
  }

  end(): CpuShares {
    const elapsed = performance.now() - this.#started;
    const server = process.cpuUsage(this.#server);
    const serverMs = (server.user + server.system) / 1000;
    const children: Record<string, number> = {};
    let ours = serverMs;
    for (const [name, child] of Object.entries(this.#children)) {
      const before = this.#childStart[name];
      const after = processCpuMs(child.pid);
      if (before === null || before === undefined || after === null) continue;
      children[name] = ((after - before) / elapsed) * 100;
      ours += after - before;
    }
    const m0 = this.#machine;
    const m1 = machineCpu();
    const machineMs = m0 && m1 ? m1.busyMs - m0.busyMs : null;
    return {
      server: (serverMs / elapsed) * 100,
      serverMs,
      children,
      machine: machineMs === null ? null : (machineMs / elapsed) * 100,
      others: machineMs === null ? null : (Math.max(0, machineMs - ours) / elapsed) * 100,
    };
  }
}

export function describeCpu(c: CpuShares): string {
  const parts = [`server ${c.server.toFixed(0)}%`];
  for (const [name, v] of Object.entries(c.children)) parts.push(`${name} ${v.toFixed(0)}%`);
  if (c.machine !== null && c.others !== null) {
    parts.push(`whole machine ${c.machine.toFixed(0)}% of 200%, other work ${c.others.toFixed(0)}%`);
  }
  return `CPU (% of one core): ${parts.join(", ")}`;
}
