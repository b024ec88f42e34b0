import { type ChildProcess, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { freePort } from "../../scripts/testing/free-port.ts";
import type { AgentFileConfig } from "../../shared/mqtt/agent-file-config.ts";

const MAIN = join(import.meta.dirname, "..", "main.ts");

export type AgentStatusBody = {
  connected: boolean;
  config: { version: number; hash: string } | null;
  last_values: { alias: string; value: number | null; quality: string; ts: string }[];
  buffer: { batches: number; points: number; stored_points: number; dropped_batches: number };
};

/**
 * caudal-agent as a real child process (`node agent/main.ts`, AGENT_CONFIG = a JSON file), so
 * tests can kill -9 it or send SIGTERM, as systemd would.
 */
export class ChildAgent {
  readonly configPath: string;
  readonly config: AgentFileConfig;
  readonly lines: string[] = [];
  #child: ChildProcess | undefined;
  #exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }> | undefined;
  readonly #env: NodeJS.ProcessEnv;
  /** How the last run ended. */
  exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;

  readonly #command: string[];

  /**
   * `command`: how to run the agent; by default `node agent/main.ts`. The single-executable tests
   * pass the built binary (under qemu for aarch64) and their own environment.
   */
  constructor(config: AgentFileConfig, o: { command?: string[]; env?: NodeJS.ProcessEnv } = {}) {
    this.config = config;
    this.#command = o.command ?? [process.execPath, MAIN];
    this.#env = o.env ?? process.env;
    this.configPath = join(config.data_dir, "agent.json");
    writeFileSync(this.configPath, JSON.stringify(config));
  }

  get running(): boolean {
    return this.#child !== undefined;
  }

  /** Starts the process and resolves once it logged that it started (store open, local API up). */
  async start(timeoutMs = 15_000): Promise<void> {
    if (this.#child) throw new Error("already running");
    const from = this.lines.length;
    const [file, ...args] = this.#command as [string, ...string[]];
    const child = spawn(file, args, {
      env: { ...this.#env, AGENT_CONFIG: this.configPath, NOTIFY_SOCKET: "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.#child = child;
    this.#exit = new Promise((resolve) =>
      child.once("exit", (code, signal) => {
        this.#child = undefined;
        this.exited = { code, signal };
        resolve({ code, signal });
      }),
    );
    let partial = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      const text = partial + chunk.toString("utf8");
      const parts = text.split("\n");
      partial = parts.pop() ?? "";
      this.lines.push(...parts.filter((l) => l.length > 0));
    });
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    const started = await Promise.race([
      (async () => {
        for (;;) {
          if (this.lines.slice(from).some((l) => l.includes("caudal-agent started"))) return true;
          await new Promise((r) => setTimeout(r, 25));
        }
      })(),
      this.#exit.then(() => false),
      new Promise<boolean>((r) => setTimeout(() => r(false), timeoutMs)),
    ]);
    if (!started) {
      child.kill("SIGKILL");
      throw new Error(`caudal-agent did not start: ${stderr || this.lines.slice(-5).join("\n")}`);
    }
  }

  /** Sends `signal` and resolves with how the process ended. */
  async kill(signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    const exit = this.#exit;
    if (!this.#child || !exit) throw new Error("not running");
    this.#child.kill(signal);
    return exit;
  }

  /** GET /status on the agent's local API. */
  async status(): Promise<AgentStatusBody> {
    const res = await fetch(`http://127.0.0.1:${this.config.local_api_port}/status`);
    if (res.status !== 200) throw new Error(`local /status: ${res.status}`);
    return (await res.json()) as AgentStatusBody;
  }

  /** Log entries the process wrote (one JSON object per stdout line). */
  entries(): { level: string; category: string; message: string }[] {
    return this.lines.flatMap((l) => {
      try {
        return [JSON.parse(l) as { level: string; category: string; message: string }];
      } catch {
        return [];
      }
    });
  }
}

export { freePort };
