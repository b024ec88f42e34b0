import type { WindowRow } from "../../ports/telemetry-store.ts";
import { DAY_MS } from "../../telemetry/buckets.ts";
import { CompensatedSum } from "../compensated-sum.ts";
import type { Query } from "./query.ts";

/**
 * Daily history windows: each UTC day the total of its hourly rollups, as SQLite's
 * `SELECT bucket - bucket % DAY … sum(sum) … GROUP BY day` adds them: counts summed, sums with
 * Kahan–Babuška–Neumaier compensation in ascending hour order (checked against SQLite on sums
 * whose result depends on the order), min and max replaced only by a strictly lower or higher value.
 */
export async function dailyWindows(
  query: Query,
  seriesId: number,
  fromBucket: number,
  toBucket: number,
): Promise<WindowRow[]> {
  const hours = await query<WindowRow>(
    `SELECT bucket::float8, count::float8, sum, min, max FROM telemetry_rollup_1h
      WHERE series_id = $1 AND bucket >= $2 AND bucket < $3 ORDER BY telemetry_rollup_1h.bucket`,
    [seriesId, fromBucket, toBucket],
  );
  const out: WindowRow[] = [];
  let current: WindowRow | undefined;
  let sum = new CompensatedSum();
  for (const [bucket, count, hourSum, min, max] of hours) {
    const day = bucket - (bucket % DAY_MS);
    if (current?.[0] !== day) {
      if (current) current[2] = sum.value;
      sum = new CompensatedSum();
      current = [day, 0, 0, min, max];
      out.push(current);
    }
    current[1] += count;
    sum.add(hourSum);
    if (min < current[3]) current[3] = min;
    if (max > current[4]) current[4] = max;
  }
  if (current) current[2] = sum.value;
  return out;
}
