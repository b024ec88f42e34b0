import { AppError } from "../../errors.ts";
import { BUCKET_1H_MS, BUCKET_5M_MS, DAY_MS } from "../../store/telemetry/buckets.ts";
import type { AuthContext } from "../auth/auth-context.ts";
import type { ServiceContext } from "../context.ts";
import { visibleAssetProject } from "./latest.ts";
import { HISTORY_DEFAULT_RANGE_MS, HISTORY_MAX_RANGE_DAYS } from "./limits.ts";

/** Spec §2, TelemetryHistoryItem: one window (5 minutes by default) of one variable. */
export type HistoryItem = {
  bucket: string;
  variable: string;
  avg_value: number;
  min_value: number;
  max_value: number;
};

export type HistoryRange = { from?: string | undefined; to?: string | undefined };

/**
 * Resolves the requested range: `to` defaults to now, `from` to 24 hours before `to`. 400 when
 * from is after to or the range is longer than HISTORY_MAX_RANGE_DAYS.
 */
export function historyRange(nowMs: number, range: HistoryRange): { fromMs: number; toMs: number } {
  const toMs = range.to === undefined ? nowMs : Date.parse(range.to);
  const fromMs = range.from === undefined ? toMs - HISTORY_DEFAULT_RANGE_MS : Date.parse(range.from);
  if (fromMs > toMs) throw new AppError("ValidationFailed", "from: must not be after to");
  if (toMs - fromMs > HISTORY_MAX_RANGE_DAYS * DAY_MS) {
    throw new AppError(
      "ValidationFailed",
      `to: the range from..to must not exceed ${HISTORY_MAX_RANGE_DAYS} days`,
    );
  }
  return { fromMs, toMs };
}

/** History resolutions: spec §8's 5-minute windows (the default), hours and days. */
export const HISTORY_INTERVALS = ["5m", "1h", "1d"] as const;
export type HistoryInterval = (typeof HISTORY_INTERVALS)[number];

export type HistoryQuery = HistoryRange & {
  interval?: HistoryInterval | undefined;
  variable?: readonly string[] | undefined;
};

const WIDTH: Record<HistoryInterval, number> = { "5m": BUCKET_5M_MS, "1h": BUCKET_1H_MS, "1d": DAY_MS };

/**
 * GET /telemetry/{asset_id}/history: one item per (window, variable) with data, for the windows
 * that overlap [from, to], ascending by window then variable. Windows are 5 minutes unless
 * `interval` says 1h or 1d (spec §8: 5-minute windows by default); `variable` keeps only those
 * variables. Served from the rollups, never from raw rows, so it reaches back beyond the raw
 * retention and costs one indexed range read per series.
 */
export async function telemetryHistory(
  ctx: ServiceContext,
  auth: AuthContext,
  assetId: string,
  query: HistoryQuery,
): Promise<HistoryItem[]> {
  const { fromMs, toMs } = historyRange(ctx.clock.now().getTime(), query);
  await visibleAssetProject(ctx, auth, assetId);
  const telemetry = ctx.store.telemetry;
  const series = await telemetry.assetSeries(assetId, query.variable);
  // Live readings reach the rollups in a pass a moment after their commit: finish it for these.
  await telemetry.rollUp(series.map((s) => s.id));
  const interval = query.interval ?? "5m";
  const width = WIDTH[interval];
  const firstBucket = fromMs - (fromMs % width);
  const end = toMs - (toMs % width) + width;
  const lists = await Promise.all(series.map((s) => telemetry.windows(s.id, interval, firstBucket, end)));
  // Each list is ascending by bucket and the lists are in variable order: sweep bucket by bucket.
  const heads = new Array<number>(lists.length).fill(0);
  const items: HistoryItem[] = [];
  for (;;) {
    let bucket = Number.POSITIVE_INFINITY;
    lists.forEach((rows, i) => {
      const row = rows[heads[i] ?? 0];
      if (row && row[0] < bucket) bucket = row[0];
    });
    if (bucket === Number.POSITIVE_INFINITY) break;
    const iso = new Date(bucket).toISOString();
    lists.forEach((rows, i) => {
      const head = heads[i] ?? 0;
      const row = rows[head];
      const s = series[i];
      if (!row || !s || row[0] !== bucket) return;
      heads[i] = head + 1;
      const [, count, sum, min, max] = row;
      items.push({
        bucket: iso,
        variable: s.variable,
        avg_value: sum / count,
        min_value: min,
        max_value: max,
      });
    });
  }
  return items;
}
