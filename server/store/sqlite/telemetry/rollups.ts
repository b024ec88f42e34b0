import type { Statement } from "better-sqlite3";
import { BUCKET_1H_MS, BUCKET_5M_MS, type Bucket, BucketBuilder } from "../../telemetry/buckets.ts";
import type { Sqlite } from "../client.ts";
import { SeriesPoints } from "./series-points.ts";

/**
 * How far a series is rolled up: every stored point with ts < rolledTo is in the rollups. When
 * replaceFrom is set (found after a crash), the 5-minute rollups from there on are rebuilt from
 * the stored points instead of merged into.
 */
export type RollupState = { rolledTo: number; replaceFrom: number | null };

/** The rollup tables' statements; 1-hour rows are always re-derived from the 5-minute ones. */
export class RollupStatements {
  readonly merge5m: Statement<[number, number, number, number, number, number]>;
  readonly derive1h: Statement<[number, number, number, number, number]>;
  readonly delete5mFrom: Statement<[number, number]>;
  readonly newestBucket: Statement<[number], [number, number]>;
  /** Stored points, raw and packed: roll-ups read them, and a rebuild may reach packed ones. */
  readonly points: SeriesPoints;

  /** `beforeRead`: see SeriesPoints. */
  constructor(sqlite: Sqlite, beforeRead?: () => void) {
    this.merge5m = sqlite.prepare(
      `INSERT INTO telemetry_rollup_5m (series_id, bucket, count, sum, min, max) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (series_id, bucket) DO UPDATE SET
         count = count + excluded.count,
         sum = sum + excluded.sum,
         min = min(min, excluded.min),
         max = max(max, excluded.max)`,
    );
    // The hour's twelve 5-minute rows are the whole truth about it: recompute, never add.
    this.derive1h = sqlite.prepare(
      `INSERT OR REPLACE INTO telemetry_rollup_1h (series_id, bucket, count, sum, min, max)
       SELECT ?, ?, sum(count), sum(sum), min(min), max(max) FROM telemetry_rollup_5m
       WHERE series_id = ? AND bucket >= ? AND bucket < ? HAVING count(*) > 0`,
    );
    this.delete5mFrom = sqlite.prepare("DELETE FROM telemetry_rollup_5m WHERE series_id = ? AND bucket >= ?");
    this.newestBucket = sqlite
      .prepare<[number], [number, number]>(
        "SELECT bucket, count FROM telemetry_rollup_5m WHERE series_id = ? ORDER BY bucket DESC LIMIT 1",
      )
      .raw();
    this.points = new SeriesPoints(sqlite, undefined, beforeRead);
  }
}

/** Adds buckets (ascending) to a series' 5-minute rollups and re-derives the hours they touch. */
export function mergeBuckets(stmts: RollupStatements, seriesId: number, buckets: readonly Bucket[]): void {
  let hour = Number.NaN;
  for (const b of buckets) {
    stmts.merge5m.run(seriesId, b.start, b.count, b.sum, b.min, b.max);
    const h = b.start - (b.start % BUCKET_1H_MS);
    if (h !== hour) {
      if (!Number.isNaN(hour)) deriveHour(stmts, seriesId, hour);
      hour = h;
    }
  }
  if (!Number.isNaN(hour)) deriveHour(stmts, seriesId, hour);
}

export function deriveHour(stmts: RollupStatements, seriesId: number, hour: number): void {
  stmts.derive1h.run(seriesId, hour, seriesId, hour, hour + BUCKET_1H_MS);
}

/**
 * A series' rollup state read back from the tables themselves, so nothing about it needs storing:
 * the rollups are complete up to their newest 5-minute bucket, and that bucket is complete when it
 * counts every stored point from its start on, raw or packed (points are unique per millisecond,
 * so the counts agree exactly). Fewer rollup than stored points there means a roll-up was cut
 * short (a crash): that bucket is rebuilt from the points. More (rollups without points: aged out,
 * or written by hand) is left alone.
 */
export function readRollupState(
  stmts: RollupStatements,
  seriesId: number,
): { state: RollupState; pending: boolean } {
  const newest = stmts.newestBucket.get(seriesId);
  if (!newest) {
    // Nothing rolled up yet: every point the series has is pending.
    const [stored] = stmts.points.countFrom(seriesId, Number.MIN_SAFE_INTEGER);
    return { state: { rolledTo: Number.NEGATIVE_INFINITY, replaceFrom: null }, pending: stored > 0 };
  }
  const [bucket, rolledCount] = newest;
  const [stored, maxTs] = stmts.points.countFrom(seriesId, bucket);
  if (stored > rolledCount) return { state: { rolledTo: bucket, replaceFrom: bucket }, pending: true };
  const rolledTo = stored > 0 && maxTs !== null ? maxTs + 1 : bucket + BUCKET_5M_MS;
  return { state: { rolledTo, replaceFrom: null }, pending: false };
}

/**
 * Rolls up to `maxRows` pending points of one series (inside the caller's transaction). Returns
 * the new state (to publish after commit) and whether the series is now fully rolled up.
 */
export function rollUpSeries(
  stmts: RollupStatements,
  seriesId: number,
  state: RollupState,
  maxRows: number,
): { state: RollupState; done: boolean; rows: number } {
  if (state.replaceFrom !== null) stmts.delete5mFrom.run(seriesId, state.replaceFrom);
  const from = state.replaceFrom ?? state.rolledTo;
  const rows = stmts.points.ascending(
    seriesId,
    Math.max(from, Number.MIN_SAFE_INTEGER),
    Number.MAX_SAFE_INTEGER,
    maxRows,
  );
  const builder = new BucketBuilder();
  for (const [ts, value] of rows) builder.add(ts, value);
  mergeBuckets(stmts, seriesId, builder.buckets);
  // A rebuilt bucket whose rows are all gone still leaves its hour to re-derive.
  if (state.replaceFrom !== null && rows.length === 0) {
    deriveHour(stmts, seriesId, state.replaceFrom - (state.replaceFrom % BUCKET_1H_MS));
  }
  const last = rows.at(-1);
  return {
    state: { rolledTo: last ? last[0] + 1 : (state.replaceFrom ?? state.rolledTo), replaceFrom: null },
    done: rows.length < maxRows,
    rows: rows.length,
  };
}
