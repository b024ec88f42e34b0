import type { Statement } from "better-sqlite3";
import type { Sqlite } from "../client.ts";
import { appendStatements } from "./chunked-append.ts";
import { SeriesPoints } from "./series-points.ts";

/**
 * The ingest hot path's prepared statements (DESIGN.md, Storage): raw better-sqlite3 rather than
 * the query builder, which would rebuild the SQL text for every row.
 */
export class WriteStatements {
  /** Multi-row appends to the inbox, by row count (chunked-append.ts). */
  readonly inboxAppend: ReadonlyMap<number, Statement<unknown[]>>;
  /**
   * Multi-row appends to telemetry_raw, for rows moved out of the inbox. They cannot collide (an
   * inbox row is stored nowhere else); the ON CONFLICT clause (~0.25 µs a row) keeps one that
   * somehow did from failing every later move.
   */
  readonly rawAppend: ReadonlyMap<number, Statement<unknown[]>>;
  /** A block of new readings written straight from a commit (raw-insert.ts, writeBlocks). */
  readonly insertBlock: Statement<[number, number, number, number, Uint8Array]>;
  /** No stored point of the series in [first, last], raw or packed. */
  readonly isFree: (seriesId: number, first: number, last: number) => boolean;
  /** One row, duplicates ignored: `changes` says whether it was stored. */
  readonly insertOne: Statement<[number, number, number]>;
  /** Stored points: a reading whose millisecond is already packed is a duplicate too. */
  readonly points: SeriesPoints;
  readonly createSeries: Statement<[string, string, string, string | null], { id: number }>;
  readonly setUnit: Statement<[string | null, number]>;
  readonly setLast: Statement<[number, number, number, number]>;
  readonly countUsage: Statement<[string, string, number]>;

  constructor(sqlite: Sqlite) {
    this.inboxAppend = appendStatements(sqlite, "telemetry_inbox");
    this.rawAppend = appendStatements(sqlite, "telemetry_raw", " ON CONFLICT DO NOTHING");
    this.insertBlock = sqlite.prepare(
      "INSERT INTO telemetry_packed (series_id, first_ts, last_ts, count, data) VALUES (?, ?, ?, ?, ?)",
    );
    const rawIn = sqlite
      .prepare<[number, number, number], number>(
        "SELECT 1 FROM telemetry_raw WHERE series_id = ? AND ts >= ? AND ts <= ? LIMIT 1",
      )
      .pluck();
    // Blocks never overlap: only the last one starting at or before `last` can reach `first`.
    const blockBefore = sqlite
      .prepare<[number, number], number>(
        "SELECT last_ts FROM telemetry_packed WHERE series_id = ? AND first_ts <= ? ORDER BY first_ts DESC LIMIT 1",
      )
      .pluck();
    this.isFree = (seriesId, first, last) =>
      rawIn.get(seriesId, first, last) === undefined &&
      (blockBefore.get(seriesId, last) ?? first - 1) < first;
    this.insertOne = sqlite.prepare(
      "INSERT INTO telemetry_raw (series_id, ts, value) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
    );
    this.points = new SeriesPoints(sqlite);
    this.createSeries = sqlite.prepare(
      "INSERT INTO telemetry_series (project_id, asset_id, variable, unit) VALUES (?, ?, ?, ?) RETURNING id",
    );
    this.setUnit = sqlite.prepare("UPDATE telemetry_series SET unit = ? WHERE id = ?");
    // Guarded so that a late (backfilled) reading never replaces a newer last value.
    this.setLast = sqlite.prepare(
      "UPDATE telemetry_series SET last_ts = ?, last_value = ? WHERE id = ? AND (last_ts IS NULL OR last_ts < ?)",
    );
    this.countUsage = sqlite.prepare(
      `INSERT INTO usage_counters (project_id, period, telemetry_points) VALUES (?, ?, ?)
       ON CONFLICT (project_id, period) DO UPDATE SET telemetry_points = telemetry_points + excluded.telemetry_points`,
    );
  }
}
