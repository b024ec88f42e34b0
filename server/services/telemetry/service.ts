import type { BatchSeries, TelemetryBatch } from "../../../shared/telemetry/batch.ts";
import { AppError } from "../../errors.ts";
import type {
  BatchTransaction,
  PackTotals,
  PointReader,
  TelemetryStore,
  WriteResult,
} from "../../store/ports/telemetry-store.ts";
import { BUCKET_1H_MS, DAY_MS } from "../../store/telemetry/buckets.ts";
import type { ServiceContext } from "../context.ts";
import type { TelemetryEvent } from "../events.ts";
import { registerTelemetryMetrics, type TelemetryTotals } from "./metrics.ts";

export type TelemetryServiceOptions = {
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
};

/** Decoded blocks kept for readers: ~16 MB at most (4,096 points of 16 bytes each). */
const READER_BLOCK_CACHE = 256;

export const DEFAULT_TELEMETRY_OPTIONS: TelemetryServiceOptions = {
  retentionIntervalMs: 3600_000,
  retentionFirstRunMs: 60_000,
  packIntervalMs: 300_000,
  packFirstRunMs: 90_000,
  packColdQuietMs: 5_000,
};

type Running = {
  timers: NodeJS.Timeout[];
  /** Armed, and pushed back, by writes of cold readings: see packColdQuietMs. */
  coldQuiet: NodeJS.Timeout | undefined;
};

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * Telemetry of one server, over its TelemetryStore: what ingest stores (readings older than the
 * raw retention are not), the billing period of each write, the telemetry event after each commit,
 * and when retention and packing run (their cutoffs come from the configuration; the store does
 * the work). The constructor only assigns; start() starts the store's writer and arms the timers;
 * stop() disarms them and stops the writer (DESIGN.md, Lifecycles). The server builds one and
 * hands it to what writes or reads telemetry.
 */
export class TelemetryService {
  readonly #ctx: ServiceContext;
  readonly #store: TelemetryStore;
  readonly #options: TelemetryServiceOptions;
  readonly #totals: TelemetryTotals = {
    stored: 0,
    duplicates: 0,
    retentionDeleted: 0,
    packedRows: 0,
    packedBlocks: 0,
    packSeconds: 0,
  };
  #running: Running | undefined;
  #points: PointReader | undefined;
  #retentionRun: Promise<number> | undefined;
  #packRun: Promise<PackTotals> | undefined;
  #stopping = false;
  /** The UTC month of the last write, with its bounds: every write needs its billing period. */
  #month = { from: 0, to: 0, period: "" };

  constructor(ctx: ServiceContext, options: Partial<TelemetryServiceOptions> = {}) {
    this.#ctx = ctx;
    this.#store = ctx.store.telemetry;
    this.#options = { ...DEFAULT_TELEMETRY_OPTIONS, ...options };
  }

  /**
   * Stored points for readers (the latest readings), with their decoded blocks cached across
   * requests: preparing the statements and decoding a series' newest block on every request cost
   * a live dashboard's poll ~0.5 ms a series.
   */
  get points(): PointReader {
    this.#points ??= this.pointsReader(READER_BLOCK_CACHE);
    return this.#points;
  }

  /** A reader of stored points with its own cache of `cachedBlocks` decoded blocks. */
  pointsReader(cachedBlocks: number): PointReader {
    return this.#store.pointReader(cachedBlocks);
  }

  get started(): boolean {
    return this.#running !== undefined;
  }

  async start(): Promise<void> {
    if (this.#running) return;
    const { logger, metrics, clock, config } = this.#ctx;
    this.#stopping = false;
    await this.#store.start(
      { blockPoints: config.TELEMETRY_BLOCK_POINTS },
      {
        warn: (message, fields) => logger.warn(message, fields),
        error: (message, fields) => logger.error(message, fields),
        info: (message, fields) => logger.info(message, fields),
        metrics,
        now: () => clock.now().getTime(),
      },
    );
    registerTelemetryMetrics(metrics, () => this.#totals);
    const timers = [
      setTimeout(() => this.#scheduledRetention(), this.#options.retentionFirstRunMs),
      setInterval(() => this.#scheduledRetention(), this.#options.retentionIntervalMs),
      setTimeout(() => this.#scheduledPacking(), this.#options.packFirstRunMs),
      setInterval(() => this.#scheduledPacking(), this.#options.packIntervalMs),
    ];
    for (const t of timers) t.unref();
    this.#running = { timers, coldQuiet: undefined };
  }

  /** Disarms the timers, then stops the store's writer (it commits what is queued). */
  async stop(): Promise<void> {
    const running = this.#running;
    if (!running) return;
    this.#stopping = true;
    for (const t of running.timers) clearTimeout(t);
    clearTimeout(running.coldQuiet);
    // The writer cuts a retention or packing pass short, then commits and rolls everything up.
    await this.#store.stop();
    await this.#retentionRun?.catch(() => 0);
    await this.#packRun?.catch(() => undefined);
    this.#running = undefined;
  }

  /** The project owning `assetId`; undefined when the asset does not exist. */
  projectOfAsset(assetId: string): Promise<string | undefined> {
    return this.#store.projectOfAsset(assetId);
  }

  /**
   * Stores a validated batch in the next group commit; resolves once it is committed, with what
   * was stored (see WriteResult), after its telemetry event (the stored part of the batch) was
   * emitted. Points older than the retention window are not stored. `tx`: more work committed in
   * the same transaction as the points, all or nothing (see BatchTransaction).
   */
  async write(batch: TelemetryBatch, tx?: BatchTransaction): Promise<WriteResult> {
    const running = this.#require();
    const now = this.#ctx.clock.now();
    const { kept, expired, oldest } = withoutExpired(batch, this.retentionCutoff(now.getTime()));
    if (kept.series.length === 0 && !tx) {
      return { accepted: 0, duplicates: 0, ...(expired ? { expired } : {}) };
    }
    // Billing counts a point in the UTC month it was received (spec §2, BillingUsage).
    const written = await this.#store.write(kept, this.#periodOf(now), tx);
    this.#totals.stored += written.result.accepted;
    this.#totals.duplicates += written.result.duplicates;
    if (oldest < this.packCutoff(now.getTime())) this.#coldWritten(running);
    if (written.committed.series.length > 0) this.#emit(written.committed);
    return expired === 0 ? written.result : { ...written.result, expired };
  }

  /**
   * Brings the rollups of these series up to date, now. Readers of rollups call it first, so what
   * they see includes every committed reading.
   */
  rollUp(seriesIds: readonly number[]): Promise<void> {
    return this.#store.rollUp(seriesIds);
  }

  /**
   * Empties the inbox and rolls up everything pending, now (tests; readers of many series): the
   * stored readings and rollups then hold every committed reading.
   */
  rollUpAll(): Promise<void> {
    return this.#store.rollUpAll();
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
    this.#require();
    const cutoff = this.retentionCutoff(this.#ctx.clock.now().getTime());
    const run = this.#store
      .deleteRawBefore(cutoff)
      .then((deleted) => {
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
   * everything up); the store then gives freed space back. The timers run it; tests and benches
   * call it, and may give their own cutoff. Concurrent calls share one pass.
   */
  runPacking(cutoffMs?: number): Promise<PackTotals> {
    if (this.#packRun !== undefined) return this.#packRun;
    this.#require();
    const { logger } = this.#ctx;
    const cutoff = cutoffMs ?? this.packCutoff(this.#ctx.clock.now().getTime());
    const before = new Date(cutoff).toISOString();
    const run = this.#store
      .pack(cutoff, (p) =>
        logger.info("telemetry packing", {
          raw_rows: p.rawRows,
          series_done: p.seriesDone,
          series_total: p.seriesTotal,
          seconds: Math.round(p.seconds),
          before,
        }),
      )
      .then((totals) => {
        this.#totals.packedRows += totals.rawRows;
        this.#totals.packedBlocks += totals.blocks;
        this.#totals.packSeconds += totals.seconds;
        if (totals.rawRows > 0 || totals.rewritten > 0) {
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

  /** The usage_counters period (YYYY-MM, UTC) of `at`. */
  #periodOf(at: Date): string {
    const ms = at.getTime();
    if (ms >= this.#month.from && ms < this.#month.to) return this.#month.period;
    const from = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1);
    const to = Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1);
    this.#month = { from, to, period: at.toISOString().slice(0, 7) };
    return this.#month.period;
  }

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
}

/** The batch without its points older than `cutoff` (the batch itself when none are), and its oldest kept ts. */
function withoutExpired(
  batch: TelemetryBatch,
  cutoff: number,
): { kept: TelemetryBatch; expired: number; oldest: number } {
  let expired = 0;
  let oldest = Number.POSITIVE_INFINITY;
  for (const s of batch.series) {
    for (const point of s.points) {
      // Indexed, not destructured: destructuring took an iterator object per point (heap profile).
      const ts = point[0];
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
  return { kept: { ...batch, series }, expired, oldest };
}
