import type { ServiceContext } from "../context.ts";

/** A periodic job; `run` may return a promise, which the pass awaits before the next job. */
export type ScheduledJob = {
  name: string;
  run(ctx: ServiceContext): unknown;
};

export const SCHEDULER_INTERVAL_MS = 60_000;

/**
 * The in-process scheduler: every minute it runs each job against `ctx.clock`, so tests drive it
 * with a fake clock and `tick()`. The constructor only assigns; start() arms the timer and stop()
 * clears it and waits for a pass under way (DESIGN.md, Lifecycles). A failing job is logged and
 * does not stop the others. Two passes never overlap: the timer skips a minute while one runs,
 * and tick() waits for it.
 */
export class Scheduler {
  readonly #ctx: ServiceContext;
  readonly #jobs: readonly ScheduledJob[];
  readonly #intervalMs: number;
  #timer: NodeJS.Timeout | undefined;
  #first: NodeJS.Immediate | undefined;
  /** The pass running or queued last; settled passes leave it undefined. */
  #pass: Promise<Record<string, unknown>> | undefined;

  constructor(ctx: ServiceContext, jobs: readonly ScheduledJob[], intervalMs = SCHEDULER_INTERVAL_MS) {
    this.#ctx = ctx;
    this.#jobs = jobs;
    this.#intervalMs = intervalMs;
  }

  start(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => this.#onTimer(), this.#intervalMs);
    // A restart right after midnight should not wait a minute for the first pass.
    this.#first = setImmediate(() => this.#onTimer());
  }

  /** Clears the timers; resolves once a pass under way has finished. */
  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    if (this.#first) clearImmediate(this.#first);
    this.#timer = undefined;
    this.#first = undefined;
    await this.#pass?.catch(() => undefined);
  }

  /** One pass of every job, now (per ctx.clock), after any pass under way; each job's result by name. */
  tick(): Promise<Record<string, unknown>> {
    const prior = this.#pass;
    const pass = (async () => {
      await prior?.catch(() => undefined);
      return this.#runJobs();
    })();
    this.#pass = pass;
    const settled = () => {
      if (this.#pass === pass) this.#pass = undefined;
    };
    pass.then(settled, settled);
    return pass;
  }

  #onTimer(): void {
    // A failed pass was logged job by job; nothing else is left to report.
    if (this.#pass === undefined) this.tick().catch(() => undefined);
  }

  async #runJobs(): Promise<Record<string, unknown>> {
    const results: Record<string, unknown> = {};
    for (const job of this.#jobs) {
      try {
        results[job.name] = await job.run(this.#ctx);
      } catch (err) {
        results[job.name] = { error: err instanceof Error ? err.message : String(err) };
        this.#ctx.logger.error("scheduled job failed", {
          job: job.name,
          error: err instanceof Error ? err.message : String(err),
        });
      }
    }
    return results;
  }
}
