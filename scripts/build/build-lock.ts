import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** A lock whose holder wrote no pid yet is left alone this long (it is between two calls). */
const NO_PID_GRACE_MS = 60_000;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, under another user.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The pid holding `lock`, or null when the lock is stale (its holder is gone) and was removed. */
function holder(lock: string): number | null {
  let pid = Number.NaN;
  try {
    pid = Number(readFileSync(join(lock, "pid"), "utf8"));
  } catch {
    const since = statSync(lock, { throwIfNoEntry: false })?.mtimeMs;
    if (since !== undefined && Date.now() - since < NO_PID_GRACE_MS) return -1;
  }
  if (Number.isInteger(pid) && pid > 0 && alive(pid)) return pid;
  rmSync(lock, { recursive: true, force: true });
  return null;
}

/**
 * One build per output folder at a time, across processes (`npm run build:agent`, the server's
 * build at start, tests): a lock folder beside it holding the builder's pid. A lock whose process
 * is gone (a killed build) is taken over. Resolves with the release function.
 */
export async function lockOutput(outDir: string, waiting: (pid: number) => void): Promise<() => void> {
  const lock = `${outDir}.lock`;
  let told = false;
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, "pid"), String(process.pid));
      return () => rmSync(lock, { recursive: true, force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    const pid = holder(lock);
    if (pid === null) continue;
    if (!told && pid > 0) {
      waiting(pid);
      told = true;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}
