import { BUCKET_1H_MS, BUCKET_5M_MS } from "../../../services/telemetry/limits.ts";
import { type Bucket, BucketBuilder } from "../../../services/telemetry/rollups.ts";
import { CompensatedSum } from "../compensated-sum.ts";
import { float8Array, int8Array } from "./binary-arrays.ts";
import type { PgPoints } from "./points.ts";
import type { Query } from "./query.ts";

/** Raw rows read per roll-up transaction, and series per transaction, as on SQLite (rollup-tracker.ts). */
export const ROLLUP_ROWS_PER_TRANSACTION = 5_000;
export const ROLLUP_SERIES_PER_TRANSACTION = 200;

/** telemetry_series.rolled_to for "nothing rolled up yet" (SQLite's −∞): below every reading. */
export const NOTHING_ROLLED = Number.MIN_SAFE_INTEGER;

/**
 * How far a series is rolled up: every stored point with ts < rolledTo is in the rollups. With
 * replaceFrom (a roll-up cut short, found from the tables), the 5-minute rollups from there on
 * are rebuilt from the stored points; such a state is never stored (rolled_to stays null).
 */
export type RollupState = { rolledTo: number; replaceFrom: number | null };

/**
 * The rollup arithmetic of SQLite's adapter (services/telemetry/rollups.ts), computed here so that
 * both engines store the same doubles: a bucket's readings are added in ts order from 0
 * (BucketBuilder); a bucket met again adds its new sum to the stored one (`sum + excluded.sum`)
 * and takes min(stored, new) as SQLite's scalar min() does (a tie takes the new one); an hour is
 * re-derived from its twelve 5-minute rows as SQLite's aggregates do (sum(sum) compensated, in
 * ascending bucket order; min and max replaced only by a strictly lower or higher value). Rows
 * are read and written in bulk, one statement each.
 */
export async function mergeBuckets(
  query: Query,
  seriesId: number,
  buckets: readonly Bucket[],
): Promise<void> {
  const first = buckets[0];
  const last = buckets.at(-1);
  if (!first || !last) return;
  const hours = new Set(buckets.map((b) => hourOf(b.start)));
  const stored = await readBuckets(query, seriesId, hourOf(first.start), hourOf(last.start) + BUCKET_1H_MS);
  const changed: Bucket[] = [];
  for (const b of buckets) {
    const e = stored.get(b.start);
    const merged: Bucket = e
      ? {
          start: b.start,
          count: e.count + b.count,
          sum: e.sum + b.sum,
          min: e.min >= b.min ? b.min : e.min,
          max: e.max < b.max ? b.max : e.max,
        }
      : { ...b };
    stored.set(b.start, merged);
    changed.push(merged);
  }
  await upsert(query, "telemetry_rollup_5m", seriesId, changed);
  await deriveHours(query, seriesId, [...hours], stored);
}

/**
 * Re-derives these hours' rows from their 5-minute rows (`known`: every 5-minute row of those
 * hours, by bucket; read when not given). An hour without 5-minute rows keeps its row, as
 * SQLite's `INSERT OR REPLACE … HAVING count(*) > 0` leaves it.
 */
export async function deriveHours(
  query: Query,
  seriesId: number,
  hours: readonly number[],
  known?: Map<number, Bucket>,
): Promise<void> {
  if (hours.length === 0) return;
  const sorted = [...hours].sort((a, b) => a - b);
  const rows =
    known ?? (await readBuckets(query, seriesId, sorted[0] ?? 0, (sorted.at(-1) ?? 0) + BUCKET_1H_MS));
  const wanted = new Set(sorted);
  const byHour = new Map<number, Bucket[]>();
  for (const b of [...rows.values()].sort((x, y) => x.start - y.start)) {
    const hour = hourOf(b.start);
    if (!wanted.has(hour)) continue;
    let list = byHour.get(hour);
    if (!list) {
      list = [];
      byHour.set(hour, list);
    }
    list.push(b);
  }
  const derived: Bucket[] = [];
  for (const hour of sorted) {
    const list = byHour.get(hour);
    if (!list || list.length === 0) continue;
    const sum = new CompensatedSum();
    let count = 0;
    let min = Number.NaN;
    let max = Number.NaN;
    for (const b of list) {
      count += b.count;
      sum.add(b.sum);
      if (Number.isNaN(min) || b.min < min) min = b.min;
      if (Number.isNaN(max) || b.max > max) max = b.max;
    }
    derived.push({ start: hour, count, sum: sum.value, min, max });
  }
  await upsert(query, "telemetry_rollup_1h", seriesId, derived);
}

/** The series' 5-minute rows with from ≤ bucket < to, by bucket. */
async function readBuckets(
  query: Query,
  seriesId: number,
  from: number,
  to: number,
): Promise<Map<number, Bucket>> {
  const rows = await query<[number, number, number, number, number]>(
    `SELECT bucket::float8, count::float8, sum, min, max FROM telemetry_rollup_5m
      WHERE series_id = $1 AND bucket >= $2 AND bucket < $3`,
    [seriesId, from, to],
  );
  return new Map(rows.map(([start, count, sum, min, max]) => [start, { start, count, sum, min, max }]));
}

async function upsert(
  query: Query,
  table: "telemetry_rollup_5m" | "telemetry_rollup_1h",
  seriesId: number,
  buckets: readonly Bucket[],
): Promise<void> {
  if (buckets.length === 0) return;
  await query(
    `INSERT INTO ${table} (series_id, bucket, count, sum, min, max)
     SELECT $1, * FROM unnest($2::bigint[], $3::bigint[], $4::float8[], $5::float8[], $6::float8[])
     ON CONFLICT (series_id, bucket) DO UPDATE SET
       count = excluded.count, sum = excluded.sum, min = excluded.min, max = excluded.max`,
    [
      seriesId,
      int8Array(buckets.map((b) => b.start)),
      int8Array(buckets.map((b) => b.count)),
      float8Array(buckets.map((b) => b.sum)),
      float8Array(buckets.map((b) => b.min)),
      float8Array(buckets.map((b) => b.max)),
    ],
  );
}

const hourOf = (ts: number): number => ts - (ts % BUCKET_1H_MS);

/**
 * A series' rollup state read back from the tables, as SQLite's readRollupState does after a
 * restart: complete up to the newest 5-minute bucket when that bucket counts every stored point
 * from its start on; fewer means a roll-up was cut short, and that bucket is rebuilt.
 */
export async function readRollupState(
  query: Query,
  points: PgPoints,
  seriesId: number,
): Promise<{ state: RollupState; pending: boolean }> {
  const [newest] = await query<[number, number]>(
    `SELECT bucket::float8, count::float8 FROM telemetry_rollup_5m WHERE series_id = $1
      ORDER BY telemetry_rollup_5m.bucket DESC LIMIT 1`,
    [seriesId],
  );
  if (!newest) {
    const [stored] = await points.countFrom(seriesId, Number.MIN_SAFE_INTEGER);
    return { state: { rolledTo: NOTHING_ROLLED, replaceFrom: null }, pending: stored > 0 };
  }
  const [bucket, rolledCount] = newest;
  const [stored, maxTs] = await points.countFrom(seriesId, bucket);
  if (stored > rolledCount) return { state: { rolledTo: bucket, replaceFrom: bucket }, pending: true };
  const rolledTo = stored > 0 && maxTs !== null ? maxTs + 1 : bucket + BUCKET_5M_MS;
  return { state: { rolledTo, replaceFrom: null }, pending: false };
}

/**
 * Rolls up to `maxRows` pending points of one series, inside the caller's transaction (which
 * holds the series row): SQLite's rollUpSeries, step for step.
 */
export async function rollUpSeries(
  query: Query,
  points: PgPoints,
  seriesId: number,
  state: RollupState,
  maxRows: number,
): Promise<{ state: RollupState; done: boolean; rows: number }> {
  if (state.replaceFrom !== null) {
    await query("DELETE FROM telemetry_rollup_5m WHERE series_id = $1 AND bucket >= $2", [
      seriesId,
      state.replaceFrom,
    ]);
  }
  const from = state.replaceFrom ?? state.rolledTo;
  const rows = await points.ascending(
    seriesId,
    Math.max(from, Number.MIN_SAFE_INTEGER),
    Number.MAX_SAFE_INTEGER,
    maxRows,
  );
  const builder = new BucketBuilder();
  for (const [ts, value] of rows) builder.add(ts, value);
  await mergeBuckets(query, seriesId, builder.buckets);
  // A rebuilt bucket whose rows are all gone still leaves its hour to re-derive.
  if (state.replaceFrom !== null && rows.length === 0) {
    await deriveHours(query, seriesId, [hourOf(state.replaceFrom)]);
  }
  const last = rows.at(-1);
  return {
    state: { rolledTo: last ? last[0] + 1 : (state.replaceFrom ?? state.rolledTo), replaceFrom: null },
    done: rows.length < maxRows,
    rows: rows.length,
  };
}
