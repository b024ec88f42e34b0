import type { TelemetryBatch } from "../../../../shared/telemetry/batch.ts";
import { AppError } from "../../../errors.ts";
import type {
  BatchTransaction,
  PackTotals,
  TelemetryWriterHost,
  TelemetryWriterOptions,
  WrittenBatch,
} from "../../ports/telemetry-store.ts";
import type { StorePorts } from "../../store.ts";
import type { Sqlite } from "../client.ts";
import { WalCheckpointer } from "./checkpointer.ts";
import { seedYoungBlocks, YOUNG_BLOCKS_LOOKBACK_MS, YoungBlocks } from "./compact-blocks.ts";
import { type CommitTotals, GroupCommit } from "./group-commit.ts";
import { TelemetryInbox } from "./inbox.ts";
import type { TelemetryLookups } from "./lookups.ts";
import type { PackProgress } from "./packer.ts";
import { TelemetryPacker } from "./packer.ts";
import { deleteExpiredRaw } from "./retention.ts";
import { RollupTracker } from "./rollup-tracker.ts";
import { WriteStatements } from "./statements.ts";
import { registerWriterMetrics } from "./writer-metrics.ts";

/** The SQLite writer's own settings; start() takes them beside the port's (tests and benches shorten them). */
export type SqliteWriterOptions = {
  /**
   * How long the first queued request waits for company before the group commit. 1 ms: with 5,
   * the event loop sat idle between commits (single POSTs: 74% busy, 7,402 req/s against 8,763 at
   * 1 ms; MQTT agent batches 25,133 messages/s against 28,353; same 2-core VM, same hour). A
   * commit then holds what arrived meanwhile: more under load, less when it is light.
   */
  windowMs: number;
  /** Commit at once when this many readings are queued. */
  maxQueuedReadings: number;
  /**
   * How often pending readings are rolled up into the 5-minute and hourly rollups. A series costs
   * about 50 µs per pass however few its new rows, so every second made 10,000 live series take
   * half a core; every 10 s takes a twentieth. Readers never wait for it: they roll their series
   * up first (rollUp).
   */
  rollupIntervalMs: number;
  /** How often the inbox is emptied when fewer than INBOX_MOVE_ROWS rows wait (inbox.ts). */
  inboxMoveIntervalMs: number;
  /** Background WAL checkpoint period, and the WAL size (pages) at which a commit checkpoints. */
  checkpointIntervalMs: number;
  autocheckpointPages: number;
};

export const DEFAULT_SQLITE_WRITER_OPTIONS: SqliteWriterOptions = {
  windowMs: 1,
  maxQueuedReadings: 20_000,
  rollupIntervalMs: 10_000,
  inboxMoveIntervalMs: 500,
  checkpointIntervalMs: 200,
  autocheckpointPages: 4_000,
};

type Running = {
  commits: GroupCommit;
  inbox: TelemetryInbox;
  tracker: RollupTracker;
  packer: TelemetryPacker;
  checkpointer: WalCheckpointer;
  timers: NodeJS.Timeout[];
  /** Stops forgetting deleted series in the tracker. */
  unwatch: () => void;
  host: TelemetryWriterHost;
  /** The connection's wal_autocheckpoint before start(), restored by stop(). */
  autocheckpoint: number;
};

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

/*
 * All telemetry writing happens on the server's own connection, on the event loop. A writer
 * thread with a second connection was tried and measured (it took ~90 µs a request off the event
 * loop) but rejected: with two connections writing, any deferred transaction on the server's
 * connection that reads and then writes fails with SQLITE_BUSY_SNAPSHOT whenever the other
 * commits in between, and the rest of the server is written that way (drizzle's default).
 */

/**
 * The running SQLite telemetry writer: the group-committed write path with its lookups, the
 * roll-up pass, raw retention, the packing of cold readings and the WAL checkpointer. start()
 * prepares statements, installs the lookup triggers, starts the checkpointer thread and arms the
 * timers; stop() commits what is queued, rolls everything up and undoes the rest (DESIGN.md,
 * Lifecycles).
 */
export class SqliteTelemetryWriter {
  readonly #sqlite: Sqlite;
  readonly #lookups: TelemetryLookups;
  readonly #transaction: <T>(work: (tx: StorePorts) => Promise<T>) => Promise<T>;
  /** Kept across restarts: Prometheus counters only grow. */
  readonly #totals: CommitTotals = { stored: 0, duplicates: 0, commits: 0, commitSeconds: 0 };
  #running: Running | undefined;
  #background: Promise<unknown> | undefined;
  #retentionRun: Promise<number> | undefined;
  #packRun: Promise<PackTotals> | undefined;
  #stopping = false;

  constructor(
    sqlite: Sqlite,
    lookups: TelemetryLookups,
    transaction: <T>(work: (tx: StorePorts) => Promise<T>) => Promise<T>,
  ) {
    this.#sqlite = sqlite;
    this.#lookups = lookups;
    this.#transaction = transaction;
  }

  get started(): boolean {
    return this.#running !== undefined && !this.#stopping;
  }

  /** Readers call it first: the inbox's rows become raw rows or blocks (inbox.ts). */
  readonly settleInbox = (): void => this.#running?.inbox.settle();

  start(options: TelemetryWriterOptions & Partial<SqliteWriterOptions>, host: TelemetryWriterHost): void {
    if (this.#running) return;
    const settings = { ...DEFAULT_SQLITE_WRITER_OPTIONS, ...options };
    const sqlite = this.#sqlite;
    this.#stopping = false;
    this.#lookups.install({ triggers: true });
    const statements = new WriteStatements(sqlite);
    const young = new YoungBlocks();
    const inbox = new TelemetryInbox(sqlite, statements, young, settings.blockPoints);
    // Rows a crash (or a kill) left in the inbox: stored points like any other, moved first.
    inbox.settle();
    const lookups = this.#lookups;
    // The triggers see this connection's changes; another process's are caught here, before each
    // write and each roll-up: what this process remembers of the tables may be stale.
    const noticeOtherWriters = () => {
      if (lookups.clearIfChangedElsewhere()) {
        inbox.suspectAll();
        tracker.unfoldAll();
      }
    };
    const tracker: RollupTracker = new RollupTracker(sqlite, inbox.settle, noticeOtherWriters);
    // A deleted series' state (and folded readings) must not outlive it: its id may come back.
    const unwatch = lookups.onSeriesDeleted((id) => tracker.forget(id));
    const commits = new GroupCommit(
      {
        sqlite,
        statements,
        lookups,
        tracker,
        inbox,
        young,
        totals: this.#totals,
        warn: (message, fields) => host.warn(message, fields),
        transaction: this.#transaction,
        beforeWrite: noticeOtherWriters,
      },
      settings,
    );
    const autocheckpoint = Number(sqlite.pragma("wal_autocheckpoint", { simple: true }));
    sqlite.pragma(`wal_autocheckpoint = ${settings.autocheckpointPages}`);
    const checkpointer = new WalCheckpointer(sqlite, host, { intervalMs: settings.checkpointIntervalMs });
    checkpointer.start();
    registerWriterMetrics(host.metrics, () => ({
      ...this.#totals,
      rollupPending: this.#running?.tracker.pendingSeries ?? 0,
    }));
    const timers = [
      setInterval(() => this.#scheduledRollup(), settings.rollupIntervalMs),
      setInterval(() => commits.moveInbox(), settings.inboxMoveIntervalMs),
    ];
    for (const t of timers) t.unref();
    const packer = new TelemetryPacker(sqlite, tracker, young);
    this.#running = {
      commits,
      inbox,
      tracker,
      packer,
      checkpointer,
      timers,
      unwatch,
      host,
      autocheckpoint,
    };
    // After a restart: the series whose roll-up a crash cut short (found before start() returns
    // when there are fewer than 500 series), the small blocks the packer is to join, then the
    // roll-up of those series.
    const stop = () => this.#stopping;
    const since = host.now() - YOUNG_BLOCKS_LOOKBACK_MS;
    this.#runBackground(() =>
      tracker
        .scan(stop)
        .then(() => seedYoungBlocks(sqlite, young, since, stop))
        .then(() => tracker.drain(stop)),
    );
  }

  /** Commits what is queued, finishes background work, rolls everything up, stops the checkpointer. */
  async stop(): Promise<void> {
    const running = this.#running;
    if (!running || this.#stopping) return;
    this.#stopping = true;
    for (const t of running.timers) clearTimeout(t);
    await running.commits.flush();
    running.commits.moveInbox();
    await this.#background?.catch(() => undefined);
    await this.#retentionRun?.catch(() => 0);
    await this.#packRun?.catch(() => undefined);
    try {
      while (!running.tracker.step());
    } catch (err) {
      // Not fatal: the next start finds these series still pending (readRollupState).
      running.host.error("telemetry roll-up at shutdown failed", { error: errorText(err) });
    }
    await running.checkpointer.stop();
    if (this.#sqlite.open) this.#sqlite.pragma(`wal_autocheckpoint = ${running.autocheckpoint}`);
    running.unwatch();
    this.#running = undefined;
    this.#stopping = false;
    this.#lookups.uninstall();
  }

  write(batch: TelemetryBatch, period: string, tx?: BatchTransaction): Promise<WrittenBatch> {
    return this.#require().commits.submit(batch, period, tx);
  }

  rollUp(seriesIds: readonly number[]): void {
    this.#require().tracker.ensure(seriesIds);
  }

  /** Rolls up, now, whatever is pending for these series; nothing while no writer runs. */
  rollUpIfRunning(seriesIds: readonly number[]): void {
    if (this.started) this.#running?.tracker.ensure(seriesIds);
  }

  rollUpAll(): void {
    const { tracker, inbox } = this.#require();
    inbox.settle();
    while (!tracker.step());
  }

  /** Concurrent calls share one pass. */
  deleteRawBefore(cutoffMs: number): Promise<number> {
    if (this.#retentionRun !== undefined) return this.#retentionRun;
    const { tracker, inbox } = this.#require();
    const stop = () => this.#stopping;
    const run = Promise.resolve()
      .then(() => inbox.settle())
      .then(() => tracker.drain(stop))
      .then(() => deleteExpiredRaw(this.#sqlite, cutoffMs, stop))
      .finally(() => {
        this.#retentionRun = undefined;
      });
    this.#retentionRun = run;
    return run;
  }

  /** Concurrent calls share one pass. */
  pack(cutoffMs: number, progress?: (p: PackProgress) => void): Promise<PackTotals> {
    if (this.#packRun !== undefined) return this.#packRun;
    const { tracker, packer, inbox, host } = this.#require();
    const stop = () => this.#stopping;
    const run = Promise.resolve()
      .then(() => inbox.settle())
      .then(() => tracker.drain(stop))
      .then(async () => {
        const totals = await packer.pack(cutoffMs, stop, progress);
        // A pass that only joined blocks written straight from ingest frees pages too.
        if (totals.rawRows > 0 || totals.rewritten > 0) {
          const released = await packer.releaseFreePages(stop);
          const walTruncated = await packer.truncateWal(stop);
          host.info("telemetry space released", { released_pages: released, wal_truncated: walTruncated });
        }
        return totals;
      })
      .finally(() => {
        this.#packRun = undefined;
      });
    this.#packRun = run;
    return run;
  }

  #require(): Running {
    if (!this.#running || this.#stopping) {
      throw new AppError("Unavailable", "telemetry storage is not running");
    }
    return this.#running;
  }

  #scheduledRollup(): void {
    const running = this.#running;
    if (!running || this.#stopping || this.#background !== undefined) return;
    this.#runBackground(() => running.tracker.drain(() => this.#stopping));
  }

  #runBackground(work: () => Promise<unknown>): void {
    const run = work()
      .catch((err: unknown) =>
        this.#running?.host.error("telemetry roll-up failed", { error: errorText(err) }),
      )
      .finally(() => {
        if (this.#background === run) this.#background = undefined;
      });
    this.#background = run;
  }
}
