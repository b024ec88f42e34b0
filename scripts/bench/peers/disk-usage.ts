import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/**
 * Allocated bytes of a directory tree (`du -s -B1`): blocks on disk, not apparent sizes, so a
 * preallocated sparse file (InfluxDB's series index segments) counts for what it really holds.
 */
export function allocatedBytes(dir: string): number {
  const out = execFileSync("du", ["-s", "-B1", dir], { encoding: "utf8" });
  const bytes = Number(out.split(/\s/)[0]);
  if (!Number.isFinite(bytes)) throw new Error(`du -s -B1 ${dir}: unexpected output ${out}`);
  return bytes;
}

/** The largest entries at the top of the directory, by allocated bytes: where the bytes are. */
export function largestEntries(dir: string, count = 4): [string, number][] {
  return readdirSync(dir)
    .map((name): [string, number] => [name, allocatedBytes(join(dir, name))])
    .sort((a, b) => b[1] - a[1])
    .slice(0, count);
}

export type Settled = { bytes: number; settled: boolean; waitedS: number };

/**
 * Waits until the directory's allocated size has not changed for `quietS` seconds (background
 * snapshots, compactions, checkpoints done), sampling every second; gives up after `maxS`.
 */
export async function settledBytes(dir: string, quietS: number, maxS: number): Promise<Settled> {
  const started = performance.now();
  let last = allocatedBytes(dir);
  let stableSince = performance.now();
  for (;;) {
    await sleep(1000);
    const now = performance.now();
    const bytes = allocatedBytes(dir);
    if (bytes !== last) {
      last = bytes;
      stableSince = now;
    }
    const waitedS = (now - started) / 1000;
    if (now - stableSince >= quietS * 1000) return { bytes, settled: true, waitedS };
    if (waitedS >= maxS) return { bytes, settled: false, waitedS };
  }
}
