import { type ChildProcess, spawn } from "node:child_process";
import { constants } from "node:os";
import { createInterface } from "node:readline";

export type ProcessSpec = {
  /** Shown before each of its output lines. */
  name: string;
  command: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
};

type Running = { spec: ProcessSpec; child: ChildProcess; exited: Promise<number> };

/**
 * Runs several programs in the foreground as one: their output is interleaved with a name prefix,
 * SIGINT/SIGTERM are forwarded, and when one program exits the others are stopped (a half-running
 * system is worse than none). A second signal kills whatever still runs.
 */
export class Supervisor {
  readonly #out: (line: string) => void;
  readonly #running: Running[] = [];
  #stopping = false;

  constructor(out: (line: string) => void) {
    this.#out = out;
  }

  start(spec: ProcessSpec): void {
    const child = spawn(spec.command, spec.args, {
      cwd: spec.cwd,
      env: spec.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const width = 8;
    const prefix = `${spec.name.padEnd(width)}| `;
    for (const stream of [child.stdout, child.stderr]) {
      if (stream) createInterface({ input: stream }).on("line", (line) => this.#out(`${prefix}${line}`));
    }
    const exited = new Promise<number>((resolve) => {
      child.once("exit", (code, signal) => resolve(code ?? 128 + (signal ? constants.signals[signal] : 0)));
      child.once("error", (err) => {
        this.#out(`${prefix}could not start: ${err.message}`);
        resolve(127);
      });
    });
    this.#running.push({ spec, child, exited });
  }

  /** Resolves with the exit code for the whole system once every program has ended. */
  async wait(): Promise<number> {
    const first = await Promise.race(this.#running.map(async (r) => ({ r, code: await r.exited })));
    if (!this.#stopping) {
      this.#out(`${first.r.spec.name} exited with code ${first.code}; stopping the others`);
      this.stop("SIGTERM");
      await Promise.all(this.#running.map((r) => r.exited));
      return first.code === 0 ? 1 : first.code;
    }
    const codes = await Promise.all(this.#running.map((r) => r.exited));
    return codes.every((c) => c === 0) ? 0 : Math.max(...codes);
  }

  /** First call: forward `signal`. Any later call: SIGKILL, for programs that hang on shutdown. */
  stop(signal: NodeJS.Signals): void {
    const kill = this.#stopping;
    this.#stopping = true;
    for (const { child } of this.#running) {
      if (child.exitCode === null && child.signalCode === null) child.kill(kill ? "SIGKILL" : signal);
    }
  }

  get stopping(): boolean {
    return this.#stopping;
  }
}
