import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { endChild } from "../sync/measure.ts";

/** A bench child (load.ts, subscriber.ts) with its own event loop, served over IPC (../ipc.ts). */
export function forkBenchChild(file: "./load.ts" | "./subscriber.ts"): ChildProcess {
  return fork(fileURLToPath(new URL(file, import.meta.url)), [], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
}

/** Runs `body` with the child, and ends the child however `body` ends. */
export async function withChild<T>(
  file: "./load.ts" | "./subscriber.ts",
  body: (child: ChildProcess) => Promise<T>,
): Promise<T> {
  const child = forkBenchChild(file);
  try {
    return await body(child);
  } finally {
    await endChild(child);
  }
}
