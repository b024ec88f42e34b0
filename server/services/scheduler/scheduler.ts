import type { ServiceContext } from "../context.ts";

/** A periodic job. `run` is synchronous (better-sqlite3), so two passes never overlap. */
export type ScheduledJob = {
  name: string;
  run(ctx: ServiceContext): unknown;
};

export const SCHEDULER_INTERVAL_MS = 60_000;

/**
 * The in-process scheduler: every minute it runs each job against `ctx.clock`, so tests drive it
 * with a fake clock and `tick()`. The constructor only assigns; start() arms the timer and stop()
 * clears it (DESIGN.md, Lifecycles). A failing job is logged and does not stop the others.
 */
export class Scheduler {
  readonly #ctx: ServiceContext;
  readonly #jobs: readonly ScheduledJob[];
  readonly #intervalMs: number;
  #timer: NodeJS.Timeout | undefined;
  #first: NodeJS.Immediate | undefined;

  constructor(ctx: ServiceContext, jobs: readonly ScheduledJob[], intervalMs = SCHEDULER_INTERVAL_MS) {
    this.#ctx = ctx;
    this.#jobs = jobs;
    this.#intervalMs = intervalMs;
  }

  start(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => this.tick(), this.#intervalMs);
    // A restart right after midnight should not wait a minute for the first pass.
    this.#first = setImmediate(() => this.tick());
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    if (this.#first) clearImmediate(this.#first);
    this.#timer = undefined;
    this.#first = undefined;
  }

  /** One pass of every job, now (per ctx.clock); the result of each job by name. */
  tick(): Record<string, unknown> {
    const results: Record<string, unknown> = {};
    for (const job of this.#jobs) {
      try {
        results[job.name] = job.run(this.#ctx);
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
