import type { Statement } from "better-sqlite3";
import type {
  PointReader,
  PointRow,
  SeriesRef,
  WindowRow,
  WindowWidth,
} from "../../ports/telemetry-store.ts";
import { BlockCache } from "../../telemetry/blocks.ts";
import { DAY_MS } from "../../telemetry/buckets.ts";
import type { Sqlite } from "../client.ts";
import type { TransactionGate } from "../transaction-gate.ts";
import { SeriesPoints } from "./series-points.ts";

/*
 * Windows start on multiples of their width since the UTC epoch. 5m and 1h are the kept rollup
 * tables themselves; a day is the sum of its 24 hourly rows, so days are UTC days (a project's
 * zone can be off UTC by a non-whole hour, which hourly rows could not cut; the ANH report has
 * the project's production day). Parameters: series, first window start, end (exclusive) of
 * the last window wanted; rows: [bucket, count, sum, min, max].
 */
const WINDOW_SQL: Record<WindowWidth, string> = {
  "5m": `SELECT bucket, count, sum, min, max FROM telemetry_rollup_5m
         WHERE series_id = ? AND bucket >= ? AND bucket < ? ORDER BY bucket`,
  "1h": `SELECT bucket, count, sum, min, max FROM telemetry_rollup_1h
         WHERE series_id = ? AND bucket >= ? AND bucket < ? ORDER BY bucket`,
  "1d": `SELECT bucket - bucket % ${DAY_MS} AS day, sum(count), sum(sum), min(min), max(max)
         FROM telemetry_rollup_1h WHERE series_id = ? AND bucket >= ? AND bucket < ?
         GROUP BY day ORDER BY day`,
};

/** The raw and history reads of the telemetry port, on prepared statements (rows as arrays). */
export class HistoryReads {
  readonly #sqlite: Sqlite;
  readonly #gate: TransactionGate;
  readonly #beforeRead: () => void;
  #windows: Record<WindowWidth, Statement<[number, number, number], WindowRow>> | undefined;
  #series: Statement<[string], SeriesRef> | undefined;

  /** `beforeRead` runs before each read of stored points (the running writer empties its inbox). */
  constructor(sqlite: Sqlite, gate: TransactionGate, beforeRead: () => void) {
    this.#sqlite = sqlite;
    this.#gate = gate;
    this.#beforeRead = beforeRead;
  }

  /**
   * The asset's series in variable order (UTF-16 code units, like the JSON readings), restricted
   * to `variables` when given: telemetry may carry any variable name, so a name not seen yet is an
   * empty answer, not an error.
   */
  assetSeries(assetId: string, variables?: readonly string[]): Promise<SeriesRef[]> {
    return this.#gate.run(() => {
      this.#series ??= this.#sqlite.prepare<[string], SeriesRef>(
        "SELECT id, variable, unit FROM telemetry_series WHERE asset_id = ?",
      );
      const wanted = variables === undefined ? undefined : new Set(variables);
      return this.#series
        .all(assetId)
        .filter((s) => wanted === undefined || wanted.has(s.variable))
        .sort((a, b) => (a.variable < b.variable ? -1 : a.variable > b.variable ? 1 : 0));
    });
  }

  windows(seriesId: number, width: WindowWidth, fromBucket: number, toBucket: number): Promise<WindowRow[]> {
    return this.#gate.run(() => {
      this.#windows ??= {
        "5m": this.#prepareWindows("5m"),
        "1h": this.#prepareWindows("1h"),
        "1d": this.#prepareWindows("1d"),
      };
      return this.#windows[width].all(seriesId, fromBucket, toBucket);
    });
  }

  pointReader(cachedBlocks: number): PointReader {
    const gate = this.#gate;
    let points: SeriesPoints | undefined;
    // Statements are prepared at the first read, on the connection, inside the gate.
    const reader = () => {
      points ??= new SeriesPoints(this.#sqlite, new BlockCache(cachedBlocks), this.#beforeRead);
      return points;
    };
    return {
      ascending: (seriesId, fromMs, toMs, limit): Promise<PointRow[]> =>
        gate.run(() => reader().ascending(seriesId, fromMs, toMs, limit)),
      descending: (seriesId, fromMs, toMs, limit): Promise<PointRow[]> =>
        gate.run(() => reader().descending(seriesId, fromMs, toMs, limit)),
    };
  }

  #prepareWindows(width: WindowWidth): Statement<[number, number, number], WindowRow> {
    return this.#sqlite.prepare<[number, number, number], WindowRow>(WINDOW_SQL[width]).raw();
  }
}
