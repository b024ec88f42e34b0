import type { Registry } from "prom-client";
import type { TelemetryBatch } from "../../../shared/telemetry/batch.ts";
import type { StorePorts } from "../store.ts";

/**
 * A series' newest reading, with where it comes from. Instants are epoch milliseconds.
 */
export type SeriesReading = {
  projectId: string;
  assetId: string;
  assetName: string;
  variable: string;
  unit: string | null;
  value: number;
  ts: number;
};

/** Width of a rollup bucket (telemetry_rollup_5m): 5 minutes, aligned to the UTC epoch. */
export const ROLLUP_BUCKET_MS = 300_000;

/** The totals of a series' 5-minute rollup buckets within a window. */
export type RollupTotals = {
  /** Readings in those buckets (the sum of their counts). */
  count: number;
  /**
   * The sum of the buckets' sums, added as IEEE doubles in ascending bucket order with
   * Kahan–Babuška–Neumaier compensation (what SQLite's SUM() computes): report bytes depend on it.
   */
  sum: number;
  /** The lowest of the buckets' minimums and the highest of their maximums. */
  min: number;
  max: number;
  /** Start of the series' first and of its last bucket within the window. */
  firstBucket: number;
  lastBucket: number;
};

/** A series of a project and what its rollups hold over a window (what a daily report needs). */
export type SeriesRollups = {
  seriesId: number;
  assetId: string;
  variable: string;
  unit: string | null;
  /** Null when the series has no bucket in the window. */
  totals: RollupTotals | null;
  /**
   * The runs of empty buckets between two buckets the series has in the window, in ascending
   * order, each as [start of its first empty bucket, start of the next bucket the series has):
   * exclusive end, so a run of n empty buckets spans n × ROLLUP_BUCKET_MS. Runs before the first
   * bucket and after the last are not listed.
   */
  holes: [number, number][];
};

/** One series of an asset: its id, variable and unit. */
export type SeriesRef = { id: number; variable: string; unit: string | null };

/** A stored reading: [ts (epoch ms), value]. */
export type PointRow = [ts: number, value: number];

/** A history window of one series: [window start (epoch ms), count, sum, min, max]. */
export type WindowRow = [bucket: number, count: number, sum: number, min: number, max: number];

/**
 * History resolutions. Windows start on multiples of their width since the UTC epoch: 5m and 1h
 * are the kept rollups themselves; a day (UTC) is the total of its 24 hourly rollups.
 */
export type WindowWidth = "5m" | "1h" | "1d";

/**
 * Reads stored readings, raw and packed alike, with its own cache of decoded blocks (a reader is
 * kept across the pages of one export, or across requests for the latest readings).
 */
export type PointReader = {
  /** At most `limit` readings of the series in [fromMs, toMs] (inclusive), ascending by ts. */
  ascending(seriesId: number, fromMs: number, toMs: number, limit: number): Promise<PointRow[]>;
  /** At most `limit` readings of the series in [fromMs, toMs] (inclusive), descending by ts. */
  descending(seriesId: number, fromMs: number, toMs: number, limit: number): Promise<PointRow[]>;
};

/**
 * What a write stored. Duplicates (a reading for a series and millisecond already stored, or
 * repeated within the write) are ignored: first write wins, so a replayed batch is harmless.
 */
export type WriteResult = {
  accepted: number;
  duplicates: number;
  /**
   * Readings older than the raw retention window, not stored: they could no longer be recognised
   * as duplicates, so rollups and billing might count them twice. The HTTP API refuses them (400)
   * before they get here; other callers (agent batches) learn the count.
   */
  expired?: number;
};

/**
 * A write's outcome: what it stored, and the part of its batch that was stored (its telemetry
 * event), each series with its unit (the readings', else the series' own).
 */
export type WrittenBatch = { result: WriteResult; committed: TelemetryBatch };

/**
 * More work committed in the same transaction as a batch's points: all of it commits with them or
 * none does (an agent's batch: its dedupe record and its alarms). It uses only the ports it is
 * handed and awaits nothing else (Store.transaction's rule). Either step may run more than once
 * (a writer that retries a failed shared commit one batch at a time), each time in a fresh
 * transaction whose effects are rolled back with it.
 */
export type BatchTransaction = {
  /** Runs first; false leaves the batch out: none of its points are written (a batch already stored). */
  claim(tx: StorePorts): Promise<boolean>;
  /** Runs after the points are written; left out when there is nothing to do (most agent batches). */
  complete?(tx: StorePorts): Promise<void>;
};

/** What a packing pass did (telemetry_packed: one compressed block per series and UTC day at most). */
export type PackTotals = {
  /** Raw rows moved into packed blocks. */
  rawRows: number;
  /** Points encoded (raw rows plus those of blocks rewritten to take late readings). */
  points: number;
  blocks: number;
  /** Blocks replaced by rewritten ones (late readings merged into them). */
  rewritten: number;
  bytes: number;
  /** Series whose rows were packed. */
  series: number;
  seconds: number;
  /** The longest packing transaction: how long the event loop (or a connection) was held at most. */
  longestStepMs: number;
};

/** The engine-side settings of the telemetry writer; the policy (which cutoffs, when) stays in the service. */
export type TelemetryWriterOptions = {
  /** New readings of one series in one commit from which they are written as a packed block; 0: never. */
  blockPoints: number;
};

/** Where the writer reports (the server's logger and metrics registry), and the server's clock. */
export type TelemetryWriterHost = {
  warn(message: string, fields: Record<string, unknown>): void;
  error(message: string, fields: Record<string, unknown>): void;
  info(message: string, fields: Record<string, unknown>): void;
  /** The server's Prometheus registry: the engine registers its own write-path metrics there. */
  readonly metrics: Registry;
  /** Epoch ms now, by the server's clock (tests move it): what "recent" means to the engine. */
  now(): number;
};

/**
 * Telemetry storage (issue 14). The write side (write, the lifecycle, retention, packing) belongs
 * to the one telemetry service of the server; reads serve routes and other aggregates (reports,
 * billing, the dashboard and alarms read telemetry only through this port). Instants are epoch
 * milliseconds. `projectIds` undefined means every project; an empty list matches nothing.
 *
 * Rollups: the 5-minute and hourly rollups of a series hold every stored reading once the writer
 * has rolled it up, which may lag a commit by a moment; readers of rollups call rollUp (or
 * settleRollups) first.
 *
 * The writer's methods (start, stop, write, rollUp, rollUpAll, deleteRawBefore, pack) are called on
 * the store's own port, never on the ports of a Store.transaction: they run their own transactions.
 */
export type TelemetryStore = {
  /** True between start() and stop(): writes are taken. */
  readonly started: boolean;
  /**
   * Starts the writer: its background work (roll-ups, the engine's own upkeep) runs until stop().
   * Work a crash cut short (readings not rolled up yet) is picked up again.
   */
  start(options: TelemetryWriterOptions, host: TelemetryWriterHost): Promise<void>;
  /** Commits what is queued, rolls everything up, stops background work. Idempotent. */
  stop(): Promise<void>;
  /**
   * Stores a validated batch (every series' asset was checked to be in its project when the
   * batch arrived; a series whose asset has since gone fails the write with NotFound "asset").
   * Its points count toward billing in `period` (YYYY-MM). Resolves once committed. The write may
   * share a commit with others (group commit), but each write, with its `tx`, is all or nothing.
   */
  write(batch: TelemetryBatch, period: string, tx?: BatchTransaction): Promise<WrittenBatch>;
  /** The project owning `assetId`; undefined when the asset does not exist. Cheap: hot path. */
  projectOfAsset(assetId: string): Promise<string | undefined>;
  /**
   * The asset's series in variable order (UTF-16 code units), restricted to `variables` when
   * given (a name without a series matches nothing).
   */
  assetSeries(assetId: string, variables?: readonly string[]): Promise<SeriesRef[]>;
  /** A reader of stored readings that keeps up to `cachedBlocks` decoded blocks. */
  pointReader(cachedBlocks: number): PointReader;
  /**
   * The series' history windows of `width` that start in [fromBucket, toBucket) (fromBucket a
   * multiple of the width), ascending; windows without readings are left out. Call rollUp first.
   */
  windows(seriesId: number, width: WindowWidth, fromBucket: number, toBucket: number): Promise<WindowRow[]>;
  /** Brings the rollups of these series up to date with every committed reading, now. */
  rollUp(seriesIds: readonly number[]): Promise<void>;
  /** Rolls up everything pending, now (tests; readers of many series). */
  rollUpAll(): Promise<void>;
  /** When each asset that has readings last reported (its series' newest reading), for comm_loss. */
  lastReports(): Promise<{ assetId: string; lastTs: number }[]>;
  /**
   * Deletes raw readings older than `cutoffMs` (after rolling everything up); rollups are kept.
   * An engine may keep a straddling day whole until it ends (PostgreSQL drops whole day
   * partitions); returns the readings deleted. `stop()` cuts a pass short.
   */
  deleteRawBefore(cutoffMs: number): Promise<number>;
  /**
   * Packs stored readings older than `cutoffMs` into compressed blocks (after rolling everything
   * up), late readings merged into their blocks; then gives freed space back where the engine
   * can. `progress` is told now and then on long passes. `stop()` cuts a pass short.
   */
  pack(
    cutoffMs: number,
    progress?: (p: PackTotals & { seriesDone: number; seriesTotal: number }) => void,
  ): Promise<PackTotals>;

  /** How many assets of these projects have a series whose newest reading is at or after `sinceMs`. */
  activeAssetCount(sinceMs: number, projectIds?: readonly string[]): Promise<number>;
  /**
   * The newest reading of each of the `limit` most recently updated series of these projects
   * (series that have a reading): newest reading first, ties by series id ascending.
   */
  recentReadings(limit: number, projectIds?: readonly string[]): Promise<SeriesReading[]>;
  /**
   * How many enabled devices of the project sit on an asset with a series whose newest reading is
   * at or after `sinceMs` (the running billing month: the newest reading tells).
   */
  devicesReportingSince(projectId: string, sinceMs: number): Promise<number>;
  /**
   * How many enabled devices of the project sit on an asset with a series that has a 5-minute
   * rollup bucket starting in [fromMs, toMs) (a closed billing month: its rollups tell).
   */
  devicesReportedIn(projectId: string, fromMs: number, toMs: number): Promise<number>;
  /**
   * Brings the 5-minute rollups of the project's series up to date with every reading committed
   * so far (live readings reach them in a pass a moment after their commit), so that a reader of
   * rollups that calls it first sees them all. Call it outside a transaction, before the one that
   * reads the rollups. Nothing to do while no telemetry writer runs in this process.
   */
  settleRollups(projectId: string): Promise<void>;
  /**
   * Every series of the project (those with no bucket in the window too), by series id ascending,
   * each with its rollup buckets whose start lies in [fromBucket, toBucket) (both multiples of
   * ROLLUP_BUCKET_MS): their totals and the holes between them.
   */
  seriesRollups(projectId: string, fromBucket: number, toBucket: number): Promise<SeriesRollups[]>;
};
