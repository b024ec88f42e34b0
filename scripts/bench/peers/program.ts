import { type ChildProcess, spawn } from "node:child_process";
import { openSync, readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

/**
 * A program the bench runs (influxd, mosquitto, `node server/main.ts`) as its own child process,
 * output to a log file in its temp dir; the log's tail is shown when it fails.
 */
export class Program {
  readonly name: string;
  readonly child: ChildProcess;
  readonly #log: string;

  constructor(name: string, command: string, args: string[], env: NodeJS.ProcessEnv, log: string) {
    this.name = name;
    this.#log = log;
    const out = openSync(log, "a");
    this.child = spawn(command, args, { env, stdio: ["ignore", out, out] });
  }

  get pid(): number {
    if (this.child.pid === undefined) throw new Error(`${this.name} did not start`);
    return this.child.pid;
  }

  logTail(lines = 20): string {
    try {
      return readFileSync(this.#log, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
    } catch {
      return "(no log)";
    }
  }

  /** Polls `ready` until it answers true; fails at once if the program exits. */
  async waitReady(ready: () => Promise<boolean>, timeoutMs: number): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while (performance.now() < deadline) {
      if (this.child.exitCode !== null || this.child.signalCode !== null) {
        throw new Error(
          `${this.name} exited (${this.child.exitCode ?? this.child.signalCode}):\n${this.logTail()}`,
        );
      }
      if (await ready().catch(() => false)) return;
      await sleep(100);
    }
    throw new Error(`${this.name} not ready within ${timeoutMs} ms:\n${this.logTail()}`);
  }

  /** SIGTERM (an orderly stop), then SIGKILL after `graceMs`. */
  async stop(graceMs = 30_000): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once("exit", () => resolve()));
    this.child.kill("SIGTERM");
    const timer = setTimeout(() => this.child.kill("SIGKILL"), graceMs);
    await exited;
    clearTimeout(timer);
  }
}
