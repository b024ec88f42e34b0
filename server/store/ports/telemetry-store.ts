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

/**
 * What other aggregates read of telemetry (issue 14: reports, billing, the dashboard and alarms
 * read it only through this port). Instants are epoch milliseconds. `projectIds` undefined means
 * every project; an empty list matches nothing.
 */
export type TelemetryStore = {
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
