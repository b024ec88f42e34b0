import type { BatchSeries, TelemetryBatch } from "../../../shared/telemetry/batch.ts";
import { AppError } from "../../errors.ts";
import { WalCheckpointer } from "../../store/sqlite/telemetry/checkpointer.ts";
import {
  seedYoungBlocks,
  YOUNG_BLOCKS_LOOKBACK_MS,
  YoungBlocks,
} from "../../store/sqlite/telemetry/compact-blocks.ts";
import {
  GroupCommit,
  type GroupCommitOptions,
  type JobTransaction,
} from "../../store/sqlite/telemetry/group-commit.ts";
import { TelemetryInbox } from "../../store/sqlite/telemetry/inbox.ts";
import { TelemetryLookups } from "../../store/sqlite/telemetry/lookups.ts";
import { BlockCache } from "../../store/sqlite/telemetry/packed-blocks.ts";
import { type PackTotals, TelemetryPacker } from "../../store/sqlite/telemetry/packer.ts";
import { deleteExpiredRaw } from "../../store/sqlite/telemetry/retention.ts";
import { RollupTracker } from "../../store/sqlite/telemetry/rollup-tracker.ts";
import { SeriesPoints } from "../../store/sqlite/telemetry/series-points.ts";
import { WriteStatements } from "../../store/sqlite/telemetry/statements.ts";
import type { ServiceContext } from "../context.ts";
import type { TelemetryEvent } from "../events.ts";
import { BUCKET_1H_MS, DAY_MS } from "./limits.ts";
import { registerTelemetryMetrics, type TelemetryTotals } from "./metrics.ts";
import type { WriteResult } from "./types.ts";

export type TelemetryServiceOptions = GroupCommitOptions & {
  /**
   * How often pending readings are rolled up into the 5-minute and hourly rollups. A series costs
   * about 50 µs per pass however few its new rows, so every second made 10,000 live series take
   * half a core; every 10 s takes a twentieth. Readers never wait for it: they roll their series
   * up first (rollUp).
   */
  rollupIntervalMs: number;
  /** How often raw readings older than TELEMETRY_RETENTION_DAYS are deleted. */
  retentionIntervalMs: number;
  /** Delay of the first retention pass after start-up. */
  retentionFirstRunMs: number;
  /** How often raw readings older than TELEMETRY_PACK_AFTER_HOURS are packed, and the first delay. */
  packIntervalMs: number;
  packFirstRunMs: number;
  /**
   * A pass also starts this long after the last write of readings already older than the pack
   * cutoff (an agent's backlog, a bulk import): they are packed once they stop arriving rather
   * than at the next interval, and not while they keep coming.
   */
  packColdQuietMs: number;
  /** How often the inbox is emptied when fewer than INBOX_MOVE_ROWS rows wait (inbox.ts). */
  inboxMoveIntervalMs: number;
  /** Background WAL checkpoint period, and the WAL size (pages) at which a commit checkpoints. */
  checkpointIntervalMs: number;
  autocheckpointPages: number;
};

/** Decoded blocks kept for readers: ~16 MB at most (4,096 points of 16 bytes each). */
const READER_BLOCK_CACHE = 256;

/** Defaults; blockPoints comes from TELEMETRY_BLOCK_POINTS. */
export const DEFAULT_TELEMETRY_OPTIONS: Omit<TelemetryServiceOptions, "blockPoints"> = {
  windowMs: 5,
  maxQueuedReadings: 20_000,
  rollupIntervalMs: 10_000,
  retentionIntervalMs: 3600_000,
  retentionFirstRunMs: 60_000,
  packIntervalMs: 300_000,
  packFirstRunMs: 90_000,
  packColdQuietMs: 5_000,
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
  /** Armed, and pushed back, by writes of cold readings: see packColdQuietMs. */
  coldQuiet: NodeJS.Timeout | undefined;
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
 * Telemetry storage of one server: the group-committed write path with its lookups, the roll-up
 * pass, the raw retention job, the packing of cold readings and the WAL checkpointer. The constructor only assigns; start()
 * prepares statements, installs the lookup triggers, starts the checkpointer thread and arms the
 * timers; stop() commits what is queued, rolls everything up and undoes the rest (DESIGN.md,
 * Lifecycles).
 */
export class TelemetryService {
  readonly #ctx: ServiceContext;
  readonly #options: TelemetryServiceOptions;
  readonly #lookups: TelemetryLookups;
  readonly #totals: TelemetryTotals = {
    stored: 0,
    duplicates: 0,
    commits: 0,
    commitSeconds: 0,
    retentionDeleted: 0,
    packedRows: 0,
    packedBlocks: 0,
    packSeconds: 0,
  };
  #running: Running | undefined;
  #points: SeriesPoints | undefined;
  #background: Promise<unknown> | undefined;
  #retentionRun: Promise<number> | undefined;
  #packRun: Promise<PackTotals> | undefined;
  #stopping = false;

  constructor(ctx: ServiceContext, options: Partial<TelemetryServiceOptions> = {}) {
    this.#ctx = ctx;
    this.#options = {
      ...DEFAULT_TELEMETRY_OPTIONS,
      blockPoints: ctx.config.TELEMETRY_BLOCK_POINTS,
      ...options,
    };
    this.#lookups = new TelemetryLookups(ctx.sqlite);
  }

  /**
   * Stored points for readers (the latest readings), with their decoded blocks cached across
   * requests: preparing the statements and decoding a series' newest block on every request cost
   * a live dashboard's poll ~0.5 ms a series.
   */
  get points(): SeriesPoints {
    this.#points ??= this.pointsReader(READER_BLOCK_CACHE);
    return this.#points;
  }

  /** A reader of stored points with its own cache of `cachedBlocks` decoded blocks. */
  pointsReader(cachedBlocks: number): SeriesPoints {
    return new SeriesPoints(this.#ctx.sqlite, new BlockCache(cachedBlocks), this.#settleInbox);
  }

  get started(): boolean {
    return this.#running !== undefined;
  }

  start(): void {
    if (this.#running) return;
    const { sqlite, logger, metrics } = this.#ctx;
    this.#stopping = false;
    this.#lookups.install({ triggers: true });
    const statements = new WriteStatements(sqlite);
    const young = new YoungBlocks();
    const inbox = new TelemetryInbox(sqlite, statements, young, this.#options.blockPoints);
    // Rows a crash (or a kill) left in the inbox: stored points like any other, moved first.
    inbox.settle();
    const tracker = new RollupTracker(sqlite, inbox.settle);
    const lookups = this.#lookups;
    const commits = new GroupCommit(
      {
        sqlite,
        statements,
        lookups,
        tracker,
        inbox,
        young,
        totals: this.#totals,
        warn: (message, fields) => logger.warn(message, fields),
        // The triggers see this connection's changes; another process's are caught here.
        beforeWrite: () => {
          if (lookups.clearIfChangedElsewhere()) inbox.suspectAll();
        },
      },
      this.#options,
    );
    const autocheckpoint = Number(sqlite.pragma("wal_autocheckpoint", { simple: true }));
    sqlite.pragma(`wal_autocheckpoint = ${this.#options.autocheckpointPages}`);
    const checkpointer = new WalCheckpointer(sqlite, logger, {
      intervalMs: this.#options.checkpointIntervalMs,
    });
    checkpointer.start();
    registerTelemetryMetrics(metrics, () => ({ ...this.#totals, rollupPending: tracker.pendingSeries }));
    const timers = [
      setTimeout(() => this.#scheduledRetention(), this.#options.retentionFirstRunMs),
      setInterval(() => this.#scheduledRetention(), this.#options.retentionIntervalMs),
      setTimeout(() => this.#scheduledPacking(), this.#options.packFirstRunMs),
      setInterval(() => this.#scheduledPacking(), this.#options.packIntervalMs),
      setInterval(() => this.#scheduledRollup(), this.#options.rollupIntervalMs),
      setInterval(() => commits.moveInbox(), this.#options.inboxMoveIntervalMs),
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
      coldQuiet: undefined,
      autocheckpoint,
    };
    // After a restart: the series whose roll-up a crash cut short (found before start() returns
    // when there are fewer than 500 series), the small blocks the packer is to join, then the
    // roll-up of those series.
    const stop = () => this.#stopping;
    const since = this.#ctx.clock.now().getTime() - YOUNG_BLOCKS_LOOKBACK_MS;
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
    if (!running) return;
    this.#stopping = true;
    for (const t of running.timers) clearTimeout(t);
    clearTimeout(running.coldQuiet);
    running.commits.flush();
    running.commits.moveInbox();
    await this.#background?.catch(() => undefined);
    await this.#retentionRun?.catch(() => 0);
    await this.#packRun?.catch(() => undefined);
    try {
      while (!running.tracker.step());
    } catch (err) {
      // Not fatal: the next start finds these series still pending (readRollupState).
      this.#ctx.logger.error("telemetry roll-up at shutdown failed", { error: errorText(err) });
    }
    await running.checkpointer.stop();
    if (this.#ctx.sqlite.open) this.#ctx.sqlite.pragma(`wal_autocheckpoint = ${running.autocheckpoint}`);
    this.#running = undefined;
    this.#lookups.uninstall();
  }

  /** The project owning `assetId`; undefined when the asset does not exist. */
  projectOfAsset(assetId: string): string | undefined {
    return this.#lookups.projectOf(assetId);
  }

  /**
   * Stores a validated batch in the next group commit; resolves once it is committed, with what
   * was stored (see WriteResult), after its telemetry event (the stored part of the batch) was
   * emitted. Points older than the retention window are not stored. `tx`: more work committed in
   * the same transaction as the points, all or nothing (see JobTransaction).
   */
  async write(batch: TelemetryBatch, tx?: JobTransaction): Promise<WriteResult> {
    const running = this.#require();
    const now = this.#ctx.clock.now();
    const { kept, expired, oldest } = withoutExpired(batch, this.retentionCutoff(now.getTime()));
    if (kept.series.length === 0 && !tx) {
      return { accepted: 0, duplicates: 0, ...(expired ? { expired } : {}) };
    }
    // Billing counts a point in the UTC month it was received (spec §2, BillingUsage).
    const written = await running.commits.submit(kept, now.toISOString().slice(0, 7), tx);
    if (oldest < this.packCutoff(now.getTime())) this.#coldWritten(running);
    if (written.committed.series.length > 0) this.#emit(written.committed);
    return expired === 0 ? written.result : { ...written.result, expired };
  }

  /**
   * Brings the rollups of these series up to date, now. Readers of rollups call it first, so what
   * they see includes every committed reading.
   */
  rollUp(seriesIds: readonly number[]): void {
    this.#require().tracker.ensure(seriesIds);
  }

  /**
   * Empties the inbox and rolls up everything pending, now (tests; readers of many series): the
   * raw rows, packed blocks and rollups then hold every committed reading.
   */
  rollUpAll(): void {
    const { tracker, inbox } = this.#require();
    inbox.settle();
    while (!tracker.step());
  }

  /** Earliest timestamp still kept raw (TELEMETRY_RETENTION_DAYS before now). */
  retentionCutoff(nowMs: number): number {
    return nowMs - this.#ctx.config.TELEMETRY_RETENTION_DAYS * DAY_MS;
  }

  /**
   * Deletes raw readings older than the retention window, after rolling everything up; rollups
   * are kept. The timer runs it; tests call it. Concurrent calls share one pass.
   */
  runRetention(): Promise<number> {
    if (this.#retentionRun !== undefined) return this.#retentionRun;
    const { tracker, inbox } = this.#require();
    const run = Promise.resolve()
      .then(() => inbox.settle())
      .then(() => tracker.drain(() => this.#stopping))
      .then(async () => {
        const cutoff = this.retentionCutoff(this.#ctx.clock.now().getTime());
        const deleted = await deleteExpiredRaw(this.#ctx.sqlite, cutoff, () => this.#stopping);
        this.#totals.retentionDeleted += deleted;
        if (deleted > 0) {
          this.#ctx.logger.info("telemetry retention", { deleted, before: new Date(cutoff).toISOString() });
        }
        return deleted;
      })
      .finally(() => {
        this.#retentionRun = undefined;
      });
    this.#retentionRun = run;
    return run;
  }

  /**
   * The end of the raw readings to pack: TELEMETRY_PACK_AFTER_HOURS before now, down to a whole
   * hour, so that packing takes complete hours.
   */
  packCutoff(nowMs: number): number {
    const end = nowMs - this.#ctx.config.TELEMETRY_PACK_AFTER_HOURS * BUCKET_1H_MS;
    return end - (((end % BUCKET_1H_MS) + BUCKET_1H_MS) % BUCKET_1H_MS);
  }

  /**
   * Packs raw readings older than the pack cutoff into compressed blocks (after rolling
   * everything up), then gives the freed pages back to the file system. The timers run it; tests
   * and benches call it, and may give their own cutoff. Concurrent calls share one pass.
   */
  runPacking(cutoffMs?: number): Promise<PackTotals> {
    if (this.#packRun !== undefined) return this.#packRun;
    const { tracker, packer, inbox } = this.#require();
    const { logger } = this.#ctx;
    const stop = () => this.#stopping;
    const run = Promise.resolve()
      .then(() => inbox.settle())
      .then(() => tracker.drain(stop))
      .then(async () => {
        const cutoff = cutoffMs ?? this.packCutoff(this.#ctx.clock.now().getTime());
        const before = new Date(cutoff).toISOString();
        const totals = await packer.pack(cutoff, stop, (p) =>
          logger.info("telemetry packing", {
            raw_rows: p.rawRows,
            series_done: p.seriesDone,
            series_total: p.seriesTotal,
            seconds: Math.round(p.seconds),
            before,
          }),
        );
        this.#totals.packedRows += totals.rawRows;
        this.#totals.packedBlocks += totals.blocks;
        this.#totals.packSeconds += totals.seconds;
        // A pass that only joined blocks written straight from ingest frees pages too.
        if (totals.rawRows > 0 || totals.rewritten > 0) {
          const released = await packer.releaseFreePages(stop);
          const walTruncated = await packer.truncateWal(stop);
          logger.info("telemetry packed", {
            raw_rows: totals.rawRows,
            points: totals.points,
            blocks: totals.blocks,
            blocks_rewritten: totals.rewritten,
            bytes: totals.bytes,
            bytes_per_point: Math.round((totals.bytes / Math.max(1, totals.points)) * 100) / 100,
            series: totals.series,
            seconds: Math.round(totals.seconds * 10) / 10,
            longest_step_ms: Math.round(totals.longestStepMs),
            released_pages: released,
            wal_truncated: walTruncated,
            before,
          });
        }
        return totals;
      })
      .finally(() => {
        this.#packRun = undefined;
      });
    this.#packRun = run;
    return run;
  }

  /** Readers call it first: the inbox's rows become raw rows or blocks (inbox.ts). */
  readonly #settleInbox = (): void => this.#running?.inbox.settle();

  #require(): Running {
    if (!this.#running || this.#stopping) {
      throw new AppError("Unavailable", "telemetry storage is not running");
    }
    return this.#running;
  }

  /** Listeners (alarms, live stream) run after the commit; one failing never fails the request. */
  #emit(event: TelemetryEvent): void {
    try {
      this.#ctx.events.emit("telemetry", event);
    } catch (err) {
      this.#ctx.logger.error("telemetry listener failed", { error: errorText(err) });
    }
  }

  #scheduledRetention(): void {
    if (!this.#running || this.#stopping) return;
    this.runRetention().catch((err: unknown) =>
      this.#ctx.logger.error("telemetry retention failed", { error: errorText(err) }),
    );
  }

  /** Readings older than the pack cutoff were stored: pack them once such writes stop. */
  #coldWritten(running: Running): void {
    if (running.coldQuiet) {
      running.coldQuiet.refresh();
      return;
    }
    running.coldQuiet = setTimeout(() => {
      running.coldQuiet = undefined;
      // After the pass under way, if there is one: it may have gone past these series already.
      const current = this.#packRun ?? Promise.resolve();
      void current.catch(() => undefined).then(() => this.#scheduledPacking());
    }, this.#options.packColdQuietMs);
    running.coldQuiet.unref();
  }

  #scheduledPacking(): void {
    if (!this.#running || this.#stopping) return;
    this.runPacking().catch((err: unknown) =>
      this.#ctx.logger.error("telemetry packing failed", { error: errorText(err) }),
    );
  }

  #scheduledRollup(): void {
    const running = this.#running;
    if (!running || this.#stopping || this.#background !== undefined) return;
    this.#runBackground(() => running.tracker.drain(() => this.#stopping));
  }

  #runBackground(work: () => Promise<unknown>): void {
    const run = work()
      .catch((err: unknown) => this.#ctx.logger.error("telemetry roll-up failed", { error: errorText(err) }))
      .finally(() => {
        if (this.#background === run) this.#background = undefined;
      });
    this.#background = run;
  }
}

/** The batch without its points older than `cutoff` (the batch itself when none are), and its oldest kept ts. */
function withoutExpired(
  batch: TelemetryBatch,
  cutoff: number,
): { kept: TelemetryBatch; expired: number; oldest: number } {
  let expired = 0;
  let oldest = Number.POSITIVE_INFINITY;
  for (const s of batch.series) {
    for (const [ts] of s.points) {
      if (ts < cutoff) expired++;
      else if (ts < oldest) oldest = ts;
    }
  }
  if (expired === 0) return { kept: batch, expired, oldest };
  const series: BatchSeries[] = [];
  for (const s of batch.series) {
    const points = s.points.filter(([ts]) => ts >= cutoff);
    if (points.length > 0) series.push({ ...s, points });
  }
  return { kept: { source: batch.source, series }, expired, oldest };
}

const services = new WeakMap<ServiceContext, TelemetryService>();

/**
 * The telemetry service of the server that owns `ctx` (one per context, created on first use).
 * CaudalServer starts and stops it; routes and other services reach it through this function.
 */
export function telemetryService(ctx: ServiceContext): TelemetryService {
  let service = services.get(ctx);
  if (!service) {
    service = new TelemetryService(ctx);
    services.set(ctx, service);
  }
  return service;
}
