import { type ChildProcess, spawn } from "node:child_process";
import { constants } from "node:os";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";

export type ProcessSpec = {
  /** Shown before each of its output lines. */
  name: string;
  command: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
};

type Running = { spec: ProcessSpec; child: ChildProcess; exited: Promise<number> };
type Exit = { name: string; code: number };

export type SupervisorOptions = {
  /** How long one program gets to stop before it is killed. */
  graceMs: number;
};

/**
 * Runs several programs in the foreground as one: their output is interleaved with a name prefix,
 * and when one program exits the others are stopped (a half-running system is worse than none).
 *
 * Stopping goes in reverse start order, one program at a time, like systemd's ordering: the agent
 * says goodbye to the broker before the server closes it, and the server outlives its clients.
 * For that the programs run in their own process groups, so a terminal's Ctrl-C reaches only this
 * supervisor, which forwards it. A program that does not stop within the grace period is killed;
 * a second signal kills everything at once.
 */
export class Supervisor {
  readonly #out: (line: string) => void;
  readonly #graceMs: number;
  readonly #running: Running[] = [];
  #stopping = false;
  readonly #firstExit: Promise<Exit>;
  #resolveFirstExit: (exit: Exit) => void = () => {};
  #shutdown: Promise<void> = Promise.resolve();

  constructor(out: (line: string) => void, options: SupervisorOptions = { graceMs: 10_000 }) {
    this.#out = out;
    this.#graceMs = options.graceMs;
    this.#firstExit = new Promise((resolve) => {
      this.#resolveFirstExit = resolve;
    });
  }

  /** Starts `spec`; false (and nothing started) once the supervisor is stopping. */
  start(spec: ProcessSpec): boolean {
    if (this.#stopping) return false;
    const child = spawn(spec.command, spec.args, {
      cwd: spec.cwd,
      env: spec.env,
      stdio: ["ignore", "pipe", "pipe"],
      // Its own process group: terminal signals go to the supervisor only (see the class comment).
      detached: true,
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
    void exited.then((code) => this.#resolveFirstExit({ name: spec.name, code }));
    this.#running.push({ spec, child, exited });
    return true;
  }

  /**
   * Resolves with the exit code for the whole system once every program has ended: 0 when they
   * all stopped cleanly on request, otherwise the code of the program that failed.
   */
  async wait(): Promise<number> {
    const first = await this.#firstExit;
    if (!this.#stopping) {
      this.#out(`${first.name} exited with code ${first.code}; stopping the others`);
      this.stop("SIGTERM");
      await this.#allExited();
      return first.code === 0 ? 1 : first.code;
    }
    const codes = await this.#allExited();
    return codes.every((c) => c === 0) ? 0 : Math.max(...codes);
  }

  /**
   * First call: stop the programs in reverse start order with `signal` (SIGINT for SIGHUP). Any
   * later call: SIGKILL all.
   */
  stop(signal: NodeJS.Signals): void {
    if (this.#stopping) {
      this.killAll();
      return;
    }
    this.#stopping = true;
    // A closed terminal (SIGHUP) is an orderly stop, like Ctrl-C: the programs are told SIGINT,
    // which each handles by closing its databases (SIGHUP would kill one that does not handle it).
    this.#shutdown = this.#stopInOrder(signal === "SIGHUP" ? "SIGINT" : signal);
  }

  /** SIGKILL to every program still running; synchronous, so it may run in a process "exit" handler. */
  killAll(): void {
    for (const { child } of this.#running) if (alive(child)) child.kill("SIGKILL");
  }

  get stopping(): boolean {
    return this.#stopping;
  }

  async #stopInOrder(signal: NodeJS.Signals): Promise<void> {
    for (const r of [...this.#running].reverse()) {
      if (!alive(r.child)) continue;
      r.child.kill(signal);
      const grace = new AbortController();
      const stopped = await Promise.race([
        r.exited.then(() => true),
        sleep(this.#graceMs, false, { signal: grace.signal }).catch(() => true),
      ]);
      grace.abort();
      if (!stopped && alive(r.child)) {
        this.#out(`${r.spec.name} did not stop within ${this.#graceMs / 1000} s; killing it`);
        r.child.kill("SIGKILL");
        await r.exited;
      }
    }
  }

  async #allExited(): Promise<number[]> {
    await this.#shutdown;
    return Promise.all(this.#running.map((r) => r.exited));
  }
}

function alive(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}
