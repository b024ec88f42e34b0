import { BUCKET_1H_MS, BUCKET_5M_MS, type Bucket, BucketBuilder } from "../../telemetry/buckets.ts";
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

/** A series' new 5-minute buckets (ascending) to merge into its rollups. */
export type SeriesBuckets = { seriesId: number; buckets: readonly Bucket[] };

/** A rollup row of some series. */
type SeriesBucket = Bucket & { seriesId: number };

/**
 * The rollup arithmetic of SQLite's adapter (services/telemetry/rollups.ts), computed here so that
 * both engines store the same doubles: a bucket's readings are added in ts order from 0
 * (BucketBuilder); a bucket met again adds its new sum to the stored one (`sum + excluded.sum`)
 * and takes min(stored, new) as SQLite's scalar min() does (a tie takes the new one); an hour is
 * re-derived from its twelve 5-minute rows as SQLite's aggregates do (sum(sum) compensated, in
 * ascending bucket order; min and max replaced only by a strictly lower or higher value).
 *
 * Any number of series (each once) in three statements: one read of the 5-minute rows of the
 * touched hours, one upsert of the 5-minute rows, one of the hours.
 */
export async function mergeBuckets(query: Query, entries: readonly SeriesBuckets[]): Promise<void> {
  const touched = entries.filter((e) => e.buckets.length > 0);
  if (touched.length === 0) return;
  const stored = await readBuckets(
    query,
    touched.map((e) => e.seriesId),
    touched.map((e) => hourOf((e.buckets[0] as Bucket).start)),
    touched.map((e) => hourOf((e.buckets.at(-1) as Bucket).start) + BUCKET_1H_MS),
  );
  const changed: SeriesBucket[] = [];
  const hours: SeriesBucket[] = [];
  for (const { seriesId, buckets } of touched) {
    const rows = stored.get(seriesId) ?? new Map<number, Bucket>();
    for (const b of buckets) {
      const e = rows.get(b.start);
      const merged: Bucket = e
        ? {
            start: b.start,
            count: e.count + b.count,
            sum: e.sum + b.sum,
            min: e.min >= b.min ? b.min : e.min,
            max: e.max < b.max ? b.max : e.max,
          }
        : { ...b };
      rows.set(b.start, merged);
      changed.push({ seriesId, ...merged });
    }
    hours.push(...deriveHours(seriesId, new Set(buckets.map((b) => hourOf(b.start))), rows));
  }
  await upsert(query, "telemetry_rollup_5m", changed);
  await upsert(query, "telemetry_rollup_1h", hours);
}

/**
 * Re-derives one hour of a series from its 5-minute rows (read here): a rebuilt bucket whose
 * readings are all gone still leaves its hour to re-derive.
 */
export async function rederiveHour(query: Query, seriesId: number, hour: number): Promise<void> {
  const stored = await readBuckets(query, [seriesId], [hour], [hour + BUCKET_1H_MS]);
  await upsert(query, "telemetry_rollup_1h", deriveHours(seriesId, new Set([hour]), stored.get(seriesId)));
}

/**
 * These hours' rows from the series' 5-minute rows (`rows`: every 5-minute row of those hours,
 * by bucket). An hour without 5-minute rows keeps its row, as SQLite's
 * `INSERT OR REPLACE … HAVING count(*) > 0` leaves it.
 */
function deriveHours(
  seriesId: number,
  hours: Set<number>,
  rows: Map<number, Bucket> | undefined,
): SeriesBucket[] {
  const byHour = new Map<number, Bucket[]>();
  for (const b of [...(rows?.values() ?? [])].sort((x, y) => x.start - y.start)) {
    const hour = hourOf(b.start);
    if (!hours.has(hour)) continue;
    let list = byHour.get(hour);
    if (!list) {
      list = [];
      byHour.set(hour, list);
    }
    list.push(b);
  }
  const derived: SeriesBucket[] = [];
  for (const hour of [...byHour.keys()].sort((a, b) => a - b)) {
    const list = byHour.get(hour) ?? [];
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
    derived.push({ seriesId, start: hour, count, sum: sum.value, min, max });
  }
  return derived;
}

/** The 5-minute rows of series ids[i] with from[i] ≤ bucket < to[i], by series and bucket. */
async function readBuckets(
  query: Query,
  ids: readonly number[],
  from: readonly number[],
  to: readonly number[],
): Promise<Map<number, Map<number, Bucket>>> {
  const rows = await query<[number, number, number, number, number, number]>(
    `SELECT r.series_id::float8, r.bucket::float8, r.count::float8, r.sum, r.min, r.max
       FROM unnest($1::bigint[], $2::bigint[], $3::bigint[]) AS w(id, f, t)
       JOIN telemetry_rollup_5m r ON r.series_id = w.id AND r.bucket >= w.f AND r.bucket < w.t`,
    [int8Array(ids), int8Array(from), int8Array(to)],
  );
  const out = new Map<number, Map<number, Bucket>>();
  for (const [seriesId, start, count, sum, min, max] of rows) {
    let bySeries = out.get(seriesId);
    if (!bySeries) {
      bySeries = new Map();
      out.set(seriesId, bySeries);
    }
    bySeries.set(start, { start, count, sum, min, max });
  }
  return out;
}

async function upsert(
  query: Query,
  table: "telemetry_rollup_5m" | "telemetry_rollup_1h",
  rows: readonly SeriesBucket[],
): Promise<void> {
  if (rows.length === 0) return;
  await query(
    `INSERT INTO ${table} (series_id, bucket, count, sum, min, max)
     SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::float8[], $5::float8[], $6::float8[])
     ON CONFLICT (series_id, bucket) DO UPDATE SET
       count = excluded.count, sum = excluded.sum, min = excluded.min, max = excluded.max`,
    [
      int8Array(rows.map((b) => b.seriesId)),
      int8Array(rows.map((b) => b.start)),
      int8Array(rows.map((b) => b.count)),
      float8Array(rows.map((b) => b.sum)),
      float8Array(rows.map((b) => b.min)),
      float8Array(rows.map((b) => b.max)),
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
  await mergeBuckets(query, [{ seriesId, buckets: builder.buckets }]);
  if (state.replaceFrom !== null && rows.length === 0)
    await rederiveHour(query, seriesId, hourOf(state.replaceFrom));
  const last = rows.at(-1);
  return {
    state: { rolledTo: last ? last[0] + 1 : (state.replaceFrom ?? state.rolledTo), replaceFrom: null },
    done: rows.length < maxRows,
    rows: rows.length,
  };
}
