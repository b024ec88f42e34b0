import type { Sqlite } from "../../db/client.ts";
import type { Logger } from "../../logger.ts";
import type { EventBus, TelemetryEvent } from "../events.ts";
import type { TelemetryLookups } from "./lookups.ts";
import type { TelemetryTotals } from "./metrics.ts";
import type { WriteStatements } from "./statements.ts";
import type { TelemetryItem, WriteResult } from "./types.ts";
import { type WriteOutcome, writeTelemetry } from "./writer.ts";

export type GroupCommitOptions = {
  /** How long the first queued request waits for company before the commit. */
  windowMs: number;
  /** Commit at once when this many readings are queued. */
  maxQueuedReadings: number;
};

type Job = {
  items: readonly TelemetryItem[];
  resolve(result: WriteResult): void;
  reject(error: unknown): void;
};

type Deps = {
  sqlite: Sqlite;
  statements: WriteStatements;
  lookups: TelemetryLookups;
  events: EventBus;
  logger: Logger;
  totals: TelemetryTotals;
  /** usage_counters period of "now" (YYYY-MM). */
  period(): string;
};

/**
 * Group commit: requests queue for at most `windowMs` and are written in one transaction, which
 * turns many small commits (one WAL frame per touched page each) into one. Each request is still
 * all-or-nothing and is answered only after the commit that holds it: if the shared transaction
 * fails, it is rolled back whole and every request is retried in a transaction of its own, so one
 * bad request never sinks the others.
 */
export class GroupCommit {
  readonly #deps: Deps;
  readonly #options: GroupCommitOptions;
  #queue: Job[] = [];
  #queuedReadings = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(deps: Deps, options: GroupCommitOptions) {
    this.#deps = deps;
    this.#options = options;
  }

  get queued(): number {
    return this.#queue.length;
  }

  submit(items: readonly TelemetryItem[]): Promise<WriteResult> {
    return new Promise<WriteResult>((resolve, reject) => {
      this.#queue.push({ items, resolve, reject });
      for (const item of items) this.#queuedReadings += item.readings.length;
      if (this.#queuedReadings >= this.#options.maxQueuedReadings) this.flush();
      else this.#timer ??= setTimeout(() => this.flush(), this.#options.windowMs);
    });
  }

  /** Commits everything queued, now (synchronously). stop() calls it so nothing queued is lost. */
  flush(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    const jobs = this.#queue;
    this.#queue = [];
    this.#queuedReadings = 0;
    if (jobs.length === 0) return;
    try {
      const outcome = this.#commit(jobs, true);
      this.#settle(jobs, outcome);
    } catch (err) {
      // Stale lookups may be the cause: start the retries from the database's state.
      this.#deps.lookups.clear();
      this.#deps.logger.warn("telemetry group commit failed; retrying its requests one by one", {
        requests: jobs.length,
        error: err instanceof Error ? err.message : String(err),
      });
      for (const job of jobs) {
        try {
          this.#settle([job], this.#commit([job], false));
        } catch (jobErr) {
          job.reject(jobErr);
        }
      }
    }
  }

  #commit(jobs: readonly Job[], appendFastPath: boolean): WriteOutcome {
    const { sqlite, statements, lookups } = this.#deps;
    const items = jobs.map((j) => j.items);
    const options = { period: this.#deps.period(), appendFastPath };
    const write = sqlite.transaction(() => writeTelemetry(statements, lookups, items, options));
    // IMMEDIATE: take the write lock up front, never upgrade a read transaction half way.
    const outcome = write.immediate();
    outcome.committed();
    return outcome;
  }

  #settle(jobs: readonly Job[], outcome: WriteOutcome): void {
    const { totals } = this.#deps;
    totals.commits++;
    jobs.forEach((job, i) => {
      const written = outcome.jobs[i];
      if (!written) {
        job.reject(new Error("telemetry commit lost a request"));
        return;
      }
      totals.stored += written.result.accepted;
      totals.duplicates += written.result.duplicates;
      for (const event of written.events) this.#emit(event);
      job.resolve(written.result);
    });
  }

  /** Listeners (alarms, live stream) run after the commit; one failing never fails the request. */
  #emit(event: TelemetryEvent): void {
    try {
      this.#deps.events.emit("telemetry", event);
    } catch (err) {
      this.#deps.logger.error("telemetry listener failed", {
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }
}
