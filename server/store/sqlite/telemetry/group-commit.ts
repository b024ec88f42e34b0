import { pointCount, type TelemetryBatch } from "../../../../shared/telemetry/batch.ts";
import type { BatchTransaction } from "../../ports/telemetry-store.ts";
import type { StorePorts } from "../../store.ts";
import type { Sqlite } from "../client.ts";
import type { YoungBlocks } from "./compact-blocks.ts";
import type { TelemetryInbox } from "./inbox.ts";
import type { TelemetryLookups } from "./lookups.ts";
import type { RollupTracker } from "./rollup-tracker.ts";
import type { WriteStatements } from "./statements.ts";
import { type WriteOutcome, type WrittenJob, writeTelemetry } from "./writer.ts";

/** Running totals of the write path, in plain fields (Prometheus reads them at scrape time). */
export type CommitTotals = { stored: number; duplicates: number; commits: number; commitSeconds: number };

export type GroupCommitOptions = {
  /** How long the first queued request waits for company before the commit. */
  windowMs: number;
  /** Commit at once when this many readings are queued. */
  maxQueuedReadings: number;
  /**
   * New readings of one series in one commit from which they are written as a packed block, not
   * as raw rows (raw-insert.ts); 0: never.
   */
  blockPoints: number;
};

/** A request's outcome, with the sequence number of the commit that held it. */
export type CommittedJob = WrittenJob & { commit: number };

type Job = {
  batch: TelemetryBatch;
  period: string;
  tx: BatchTransaction | undefined;
  resolve(result: CommittedJob): void;
  reject(error: unknown): void;
};

const NOTHING: WrittenJob = {
  result: { accepted: 0, duplicates: 0 },
  committed: { source: "http", series: [] },
};

export type GroupCommitDeps = {
  sqlite: Sqlite;
  statements: WriteStatements;
  lookups: TelemetryLookups;
  tracker: RollupTracker;
  /** Where readings that make no block land (inbox.ts); a commit's end schedules its move when due. */
  inbox: TelemetryInbox;
  /** Told of the blocks each commit wrote, so the packer joins the small ones later. */
  young: YoungBlocks;
  totals: CommitTotals;
  warn(message: string, fields: Record<string, unknown>): void;
  /** The store's transaction (SqliteStore.transaction): the gate, then BEGIN IMMEDIATE … COMMIT. */
  transaction<T>(work: (tx: StorePorts) => Promise<T>): Promise<T>;
  /** Runs first inside every write transaction (the service checks for other processes' commits). */
  beforeWrite(): void;
};

/**
 * Group commit: requests queue for at most `windowMs` and are written in one transaction, which
 * turns many small commits (one WAL frame per touched page each) into one. Each request (its
 * points and its BatchTransaction) is still all-or-nothing and is answered only after the commit that
 * holds it: if the shared transaction fails, it is rolled back whole and every request is retried
 * in a transaction of its own, so one bad request never sinks the others.
 */
export class GroupCommit {
  readonly #deps: GroupCommitDeps;
  readonly #options: GroupCommitOptions;
  #queue: Job[] = [];
  #queuedReadings = 0;
  #timer: NodeJS.Timeout | undefined;
  #moveScheduled = false;

  constructor(deps: GroupCommitDeps, options: GroupCommitOptions) {
    this.#deps = deps;
    this.#options = options;
  }

  /**
   * Queues one request's batch; resolves once it is committed. `period` is the usage_counters
   * month (YYYY-MM) its points count toward; `tx`, more work that commits with them.
   */
  submit(batch: TelemetryBatch, period: string, tx?: BatchTransaction): Promise<CommittedJob> {
    return new Promise<CommittedJob>((resolve, reject) => {
      this.#queue.push({ batch, period, tx, resolve, reject });
      this.#queuedReadings += pointCount(batch);
      if (this.#queuedReadings >= this.#options.maxQueuedReadings) void this.flush();
      else this.#timer ??= setTimeout(() => void this.flush(), this.#options.windowMs);
    });
  }

  /**
   * Commits everything queued, now; resolves once every queued request is answered. Shutdown
   * calls it so nothing queued is lost.
   */
  async flush(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    const jobs = this.#queue;
    this.#queue = [];
    this.#queuedReadings = 0;
    if (jobs.length === 0) return;
    let outcome: WriteOutcome;
    try {
      outcome = await this.#commit(jobs, true);
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
          alone = await this.#commit([job], false);
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

  async #commit(jobs: readonly Job[], appendFastPath: boolean): Promise<WriteOutcome> {
    const { sqlite, statements, lookups, tracker, inbox, totals } = this.#deps;
    const started = performance.now();
    // Through the store's transaction gate (BEGIN IMMEDIATE: the write lock up front, never a read
    // transaction upgraded half way): a claim or completion awaits the ports it is handed, which
    // answer synchronously underneath, so the whole commit still ends before the event loop turns.
    const outcome = await this.#deps.transaction(async (ports): Promise<WriteOutcome> => {
      this.#deps.beforeWrite();
      // Claimed all at once, not one await each: the ports answer synchronously underneath, so
      // each claim has done its work, in the jobs' order, before the first await returns (a batch
      // queued twice in one commit is still claimed once).
      const verdicts = await Promise.all(jobs.map((job) => (job.tx ? job.tx.claim(ports) : true)));
      const claimed = jobs.filter((_, i) => verdicts[i]);
      const written = writeTelemetry(statements, lookups, tracker, inbox, claimed, {
        appendFastPath,
        blockPoints: this.#options.blockPoints,
      });
      for (const job of claimed) if (job.tx?.complete) await job.tx.complete(ports);
      // Answers in the jobs' order; a job left out stored nothing.
      const answers: WrittenJob[] = [];
      let next = 0;
      for (const job of jobs) {
        const answer = job === claimed[next] ? written.jobs[next++] : NOTHING;
        if (!answer) throw new Error("telemetry commit lost a request");
        answers.push(answer);
      }
      return { jobs: answers, blocks: written.blocks, committed: written.committed };
    });
    totals.commitSeconds += (performance.now() - started) / 1000;
    totals.commits++;
    outcome.committed();
    for (const [seriesId, firstTs] of outcome.blocks.firstTsBySeries)
      this.#deps.young.note(seriesId, firstTs);
    inbox.committed(outcome.blocks.inboxRows, outcome.blocks.firstTsBySeries.keys());
    if (inbox.due && !this.#moveScheduled) {
      // After this commit's answers are out: the move is its own transaction.
      this.#moveScheduled = true;
      setImmediate(() => {
        this.#moveScheduled = false;
        // The server may have stopped meanwhile: the next start moves the rows.
        if (sqlite.open) this.moveInbox();
      });
    }
    return outcome;
  }

  /** Empties the inbox now; a failure is logged, and the rows wait for the next move. */
  moveInbox(): void {
    try {
      this.#deps.inbox.settle();
    } catch (err) {
      this.#deps.warn("telemetry inbox move failed; its rows stay for the next one", {
        error: err instanceof Error ? err.message : String(err),
      });
    }
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
