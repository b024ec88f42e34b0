import { type ChildProcess, spawn } from "node:child_process";
import { setPriority } from "node:os";
import { createInterface } from "node:readline";
import type { AgentBuildStatus } from "../../../../shared/distribution/agent-build-status.ts";
import { progressOf } from "../../../../shared/distribution/agent-build-status.ts";
import type { AgentTarget } from "../../../../shared/distribution/agent-manifest.ts";
import type { ServiceContext } from "../../context.ts";
import { AgentArtifacts } from "../agent-artifacts.ts";
import {
  type AgentBuildCommand,
  type AgentBuildPlan,
  buildEnvironment,
  planAgentBuild,
} from "./build-plan.ts";
import { notServedError } from "./not-served.ts";

/** The lowest priority (nice 19): the demo and the API keep the CPU while the build runs. */
const BUILD_NICENESS = 19;
/** How long stop() waits for a build told to stop before it kills it. */
const STOP_GRACE_MS = 3_000;
const BUILD_LINE_PREFIX = /^build:agent: /;

type Running = {
  child: ChildProcess;
  startedAt: Date;
  step: string | null;
  progress: { done: number; total: number } | null;
  /** The last lines of its output: a failure's reason is among them. */
  tail: string[];
  closed: Promise<void>;
};

/**
 * The server's own build of missing agent executables (issue 28 §3): at start, when a target is
 * not served and this server can build it (build-plan.ts), `npm run build:agent`'s script runs as
 * a child process at nice 19 into AGENT_DIST_DIR, and each executable is served as soon as it is
 * made. Its state is in this process only: a second server on the same AGENT_DIST_DIR builds
 * nothing the first is building (the build's lock makes it wait, then it finds the executables).
 */
export class AgentBuild {
  readonly artifacts: AgentArtifacts;
  readonly #ctx: ServiceContext;
  readonly #command: AgentBuildCommand | undefined;
  #plan: AgentBuildPlan | undefined;
  #running: Running | undefined;
  #last: { startedAt: Date; finishedAt: Date; error: string | null } | undefined;
  #stopping = false;

  constructor(ctx: ServiceContext, command?: AgentBuildCommand) {
    this.#ctx = ctx;
    this.#command = command;
    this.artifacts = new AgentArtifacts(ctx.config.AGENT_DIST_DIR, {
      notServed: (targets, what) => this.#notServed(targets, what),
      beingBuilt: (target) => this.beingBuilt(target),
    });
  }

  /** Plans, and starts the build when a target it can make is missing; never waits for it. */
  start(): void {
    const plan = planAgentBuild(this.#ctx.config, this.#command);
    this.#plan = plan;
    const missing = plan.targets.filter((t) => !this.artifacts.served(t));
    const cannot = Object.entries(plan.cannot).filter(([t]) => !this.artifacts.served(t as AgentTarget));
    for (const [target, reason] of cannot)
      this.#ctx.logger.info("agent executable not built, and not buildable here", { target, reason });
    if (missing.length > 0) this.#spawn(plan, missing);
  }

  async stop(): Promise<void> {
    this.#stopping = true;
    const running = this.#running;
    if (!running) return;
    this.#signal(running.child, "SIGTERM");
    const timer = setTimeout(() => this.#signal(running.child, "SIGKILL"), STOP_GRACE_MS);
    await running.closed;
    clearTimeout(timer);
  }

  beingBuilt(target: AgentTarget): boolean {
    return this.#running !== undefined && (this.#plan?.targets.includes(target) ?? false);
  }

  status(): AgentBuildStatus {
    const built = this.artifacts.servedTargets();
    const iso = (d: Date | undefined) => d?.toISOString() ?? null;
    const running = this.#running;
    if (running) {
      const done = running.progress ? ` (${running.progress.done} of ${running.progress.total} done)` : "";
      return {
        state: "building",
        message: `the agent executables are being built${done}`,
        built,
        step: running.step,
        progress: running.progress,
        started_at: iso(running.startedAt),
        finished_at: null,
        error: null,
      };
    }
    const last = this.#last;
    const base = {
      built,
      step: null,
      progress: null,
      started_at: iso(last?.startedAt),
      finished_at: iso(last?.finishedAt),
      error: last?.error ?? null,
    };
    const plan = this.#plan;
    const unbuilt = (targets: readonly AgentTarget[]) => targets.filter((t) => !built.includes(t));
    const missing = unbuilt(plan?.targets ?? []);
    const notBuildable = unbuilt(Object.keys(plan?.cannot ?? {}) as AgentTarget[]);
    if (missing.length === 0 && notBuildable.length === 0 && built.length > 0)
      return { ...base, state: "ready", message: null };
    // What this server could build is there; the rest cannot be built here (each says why).
    if (missing.length === 0 && built.length > 0) {
      const what = `the ${notBuildable.join(" and ")} executable${notBuildable.length > 1 ? "s" : ""}`;
      const message = this.#notServed(notBuildable, what, notBuildable.length > 1).message;
      return { ...base, state: "ready", message };
    }
    const failed = last?.error != null && missing.length > 0;
    const message = this.#notServed([...missing, ...notBuildable], "the agent executables", true).message;
    return { ...base, state: failed ? "failed" : "unavailable", message };
  }

  #notServed(targets: readonly AgentTarget[], what: string, plural = false) {
    return notServedError({
      targets,
      what,
      plural,
      building: this.#running ? { progress: this.#running.progress } : null,
      beingBuilt: (t) => this.beingBuilt(t),
      planned: this.#plan ? { targets: this.#plan.targets, cannot: this.#plan.cannot } : null,
      lastError: this.#last?.error ?? null,
    });
  }

  #signal(child: ChildProcess, signal: NodeJS.Signals): void {
    try {
      // Its own process group (detached): the tools it runs (npm, strip, postject) stop with it.
      if (child.pid !== undefined && process.platform !== "win32") process.kill(-child.pid, signal);
      else child.kill(signal);
    } catch {
      // Already gone.
    }
  }

  #spawn(plan: AgentBuildPlan, missing: AgentTarget[]): void {
    const { logger, clock } = this.#ctx;
    logger.info("building the agent executables in the background (nice 19)", {
      missing: missing.join(", "),
      targets: plan.targets.join(", "),
    });
    const child = spawn(plan.command.command, plan.command.args, {
      cwd: plan.cwd,
      env: buildEnvironment(process.env),
      stdio: ["ignore", "pipe", "pipe"],
      detached: process.platform !== "win32",
    });
    const running: Running = {
      child,
      startedAt: clock.now(),
      step: null,
      progress: { done: 0, total: plan.targets.length },
      tail: [],
      closed: Promise.resolve(),
    };
    child.once("spawn", () => {
      if (child.pid === undefined) return;
      try {
        setPriority(child.pid, BUILD_NICENESS);
      } catch {
        // Not permitted here: it still runs, at the server's priority.
      }
    });
    const onLine = (raw: string) => {
      const line = raw.replace(BUILD_LINE_PREFIX, "").trim();
      if (line === "") return;
      running.step = line;
      running.progress = progressOf(line) ?? running.progress;
      running.tail.push(line);
      if (running.tail.length > 5) running.tail.shift();
      logger.info("agent build", { step: line });
    };
    if (child.stdout) createInterface({ input: child.stdout }).on("line", onLine);
    if (child.stderr) createInterface({ input: child.stderr }).on("line", onLine);
    running.closed = new Promise<void>((resolve) => {
      const finish = (error: string | null) => {
        if (this.#running !== running) return;
        this.#running = undefined;
        const finishedAt = clock.now();
        const stillMissing = plan.targets.filter((t) => !this.artifacts.served(t));
        const failure =
          error ??
          (stillMissing.length > 0 ? `the build ended without making ${stillMissing.join(", ")}` : null);
        this.#last = { startedAt: running.startedAt, finishedAt, error: failure };
        const seconds = ((finishedAt.getTime() - running.startedAt.getTime()) / 1000).toFixed(1);
        if (this.#stopping && error !== null)
          logger.info("the agent build stopped with the server; the next start goes on with it", { seconds });
        else if (failure) logger.warn("the agent build failed", { error: failure, seconds });
        else logger.info("agent executables built", { targets: plan.targets.join(", "), seconds });
        resolve();
      };
      child.once("error", (err) => finish(`the build could not start: ${err.message}`));
      child.once("close", (code, signal) => {
        if (code === 0) finish(null);
        else if (this.#stopping) finish("stopped: the server is shutting down");
        else finish(`the build exited with ${code ?? signal}: ${running.tail.at(-1) ?? "no output"}`);
      });
    });
    this.#running = running;
  }
}
