import type { PointRow } from "../../ports/telemetry-store.ts";
import { BucketBuilder } from "../../telemetry/buckets.ts";
import { int8Array } from "./binary-arrays.ts";
import type { Query } from "./query.ts";
import { mergeBuckets, type RollupState, rederiveHour, type SeriesBuckets } from "./rollups.ts";

/** A pending series of a roll-up transaction and the outcome of its roll-up. */
export type RollupItem = { id: number; state: RollupState };
export type RolledUp = { id: number; state: RollupState; done: boolean; rows: number };

const HOUR = 3_600_000;

/**
 * SQLite's roll-up transaction (each series in turn: its first `budget` pending readings, the
 * budget shared in order; rollup-tracker.ts) in a few statements for all the series at once,
 * instead of five round trips a series: the live case, every series a few new raw rows, is a
 * roll-up pass over thousands of series.
 *
 * One statement reads the pending raw rows of every series, in the items' order and then by ts,
 * stopping at the budget (a nested loop over the items, each an index range scan with its own
 * LIMIT, under an outer LIMIT). Undefined, with nothing changed, when a series may have packed
 * readings from its watermark on (a block written after it, as after a move from SQLite) or the
 * rows did not come in that order: the caller then rolls up series by series (rollUpSeries).
 */
export async function rollUpMany(
  query: Query,
  items: readonly RollupItem[],
  budget: number,
): Promise<RolledUp[] | undefined> {
  const ids = items.map((i) => i.id);
  const from = items.map((i) => Math.max(i.state.replaceFrom ?? i.state.rolledTo, Number.MIN_SAFE_INTEGER));
  const [packed] = await query<[boolean]>(
    `SELECT EXISTS (SELECT 1 FROM unnest($1::bigint[], $2::bigint[]) AS w(id, f)
       WHERE EXISTS (SELECT 1 FROM telemetry_packed p WHERE p.series_id = w.id AND p.last_ts >= w.f
         AND p.first_ts >= coalesce((SELECT max(first_ts) FROM telemetry_packed
           WHERE series_id = w.id AND first_ts <= w.f), w.f)))`,
    [int8Array(ids), int8Array(from)],
  );
  if (packed?.[0] !== false) return undefined;
  const rows = await query<[number, number, number]>(
    `SELECT w.ord::float8, r.ts, r.value
       FROM unnest($1::bigint[], $2::bigint[]) WITH ORDINALITY AS w(id, f, ord)
       CROSS JOIN LATERAL (SELECT ts::float8 AS ts, value FROM telemetry_raw
         WHERE series_id = w.id AND ts >= w.f ORDER BY telemetry_raw.ts LIMIT $3) AS r
      LIMIT $3`,
    [int8Array(ids), int8Array(from), budget],
  );
  // The rows of each item, in order; anything else and this path is not taken.
  const perItem: PointRow[][] = items.map(() => []);
  let previous: [number, number] = [0, Number.NEGATIVE_INFINITY];
  for (const [ord, ts, value] of rows) {
    if (ord < previous[0] || (ord === previous[0] && ts <= previous[1])) return undefined;
    previous = [ord, ts];
    perItem[ord - 1]?.push([ts, value]);
  }
  const replaced = items.filter((i) => i.state.replaceFrom !== null);
  if (replaced.length > 0) {
    await query(
      `DELETE FROM telemetry_rollup_5m r USING unnest($1::bigint[], $2::bigint[]) AS w(id, f)
        WHERE r.series_id = w.id AND r.bucket >= w.f`,
      [int8Array(replaced.map((i) => i.id)), int8Array(replaced.map((i) => i.state.replaceFrom ?? 0))],
    );
  }
  const out: RolledUp[] = [];
  const merges: SeriesBuckets[] = [];
  const emptied: RollupItem[] = [];
  let left = budget;
  items.forEach((item, k) => {
    if (left <= 0) return;
    const got = perItem[k] ?? [];
    const builder = new BucketBuilder();
    for (const [ts, value] of got) builder.add(ts, value);
    merges.push({ seriesId: item.id, buckets: builder.buckets });
    if (item.state.replaceFrom !== null && got.length === 0) emptied.push(item);
    const last = got.at(-1);
    out.push({
      id: item.id,
      state: {
        rolledTo: last ? last[0] + 1 : (item.state.replaceFrom ?? item.state.rolledTo),
        replaceFrom: null,
      },
      done: got.length < left,
      rows: got.length,
    });
    left -= got.length;
  });
  await mergeBuckets(query, merges);
  for (const item of emptied) {
    const f = item.state.replaceFrom ?? 0;
    await rederiveHour(query, item.id, f - (f % HOUR));
  }
  return out;
}
