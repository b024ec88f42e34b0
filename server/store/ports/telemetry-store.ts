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
};
