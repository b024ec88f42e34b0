import type { Sqlite } from "../../db/client.ts";
import type { TelemetryLookups } from "./lookups.ts";
import type { TelemetryTotals } from "./metrics.ts";
import type { RollupTracker } from "./rollup-tracker.ts";
import type { WriteStatements } from "./statements.ts";
import type { TelemetryItem } from "./types.ts";
import { type WriteOutcome, type WrittenJob, writeTelemetry } from "./writer.ts";

export type GroupCommitOptions = {
  /** How long the first queued request waits for company before the commit. */
  windowMs: number;
  /** Commit at once when this many readings are queued. */
  maxQueuedReadings: number;
};

/** A request's outcome, with the sequence number of the commit that held it. */
export type CommittedJob = WrittenJob & { commit: number };

type Job = {
  items: readonly TelemetryItem[];
  period: string;
  resolve(result: CommittedJob): void;
  reject(error: unknown): void;
};

export type GroupCommitDeps = {
  sqlite: Sqlite;
  statements: WriteStatements;
  lookups: TelemetryLookups;
  tracker: RollupTracker;
  totals: TelemetryTotals;
  warn(message: string, fields: Record<string, unknown>): void;
  /** Runs first inside every write transaction (the service checks for other processes' commits). */
  beforeWrite(): void;
};

/**
 * Group commit: requests queue for at most `windowMs` and are written in one transaction, which
 * turns many small commits (one WAL frame per touched page each) into one. Each request is still
 * all-or-nothing and is answered only after the commit that holds it: if the shared transaction
 * fails, it is rolled back whole and every request is retried in a transaction of its own, so one
 * bad request never sinks the others.
 */
export class GroupCommit {
  readonly #deps: GroupCommitDeps;
  readonly #options: GroupCommitOptions;
  #queue: Job[] = [];
  #queuedReadings = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(deps: GroupCommitDeps, options: GroupCommitOptions) {
    this.#deps = deps;
    this.#options = options;
  }

  /**
   * Queues one request's payloads; resolves once they are committed. `period` is the
   * usage_counters month (YYYY-MM) its points count toward.
   */
  submit(items: readonly TelemetryItem[], period: string): Promise<CommittedJob> {
    return new Promise<CommittedJob>((resolve, reject) => {
      this.#queue.push({ items, period, resolve, reject });
      for (const item of items) this.#queuedReadings += item.readings.length;
      if (this.#queuedReadings >= this.#options.maxQueuedReadings) this.flush();
      else this.#timer ??= setTimeout(() => this.flush(), this.#options.windowMs);
    });
  }

  /** Commits everything queued, now (synchronously). Shutdown calls it so nothing queued is lost. */
  flush(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    const jobs = this.#queue;
    this.#queue = [];
    this.#queuedReadings = 0;
    if (jobs.length === 0) return;
    let outcome: WriteOutcome;
    try {
      outcome = this.#commit(jobs, true);
    } catch (err) {
      // Stale lookups may be the cause: start the retries from the database's state.
      this.#deps.lookups.clear();
      this.#deps.warn("telemetry group commit failed; retrying its requests one by one", {
        requests: jobs.length,
        error: err instanceof Error ? err.message : String(err),
      });
      for (const job of jobs) {
        let alone: WriteOutcome;
        try {
          alone = this.#commit([job], false);
        } catch (jobErr) {
          job.reject(jobErr);
          continue;
        }
        this.#settle([job], alone);
      }
      return;
    }
    this.#settle(jobs, outcome);
  }

  #commit(jobs: readonly Job[], appendFastPath: boolean): WriteOutcome {
    const { sqlite, statements, lookups, tracker, totals } = this.#deps;
    const write = sqlite.transaction(() => {
      this.#deps.beforeWrite();
      return writeTelemetry(statements, lookups, tracker, jobs, { appendFastPath });
    });
    const started = performance.now();
    // IMMEDIATE: take the write lock up front, never upgrade a read transaction half way.
    const outcome = write.immediate();
    totals.commitSeconds += (performance.now() - started) / 1000;
    totals.commits++;
    outcome.committed();
    return outcome;
  }

  #settle(jobs: readonly Job[], outcome: WriteOutcome): void {
    const { totals } = this.#deps;
    jobs.forEach((job, i) => {
      const written = outcome.jobs[i];
      if (!written) {
        job.reject(new Error("telemetry commit lost a request"));
        return;
      }
      totals.stored += written.result.accepted;
      totals.duplicates += written.result.duplicates;
      job.resolve({ ...written, commit: totals.commits });
    });
  }
}
