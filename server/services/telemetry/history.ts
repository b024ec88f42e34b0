import { AppError } from "../../http/errors.ts";
import type { AuthContext } from "../auth/auth-context.ts";
import type { ServiceContext } from "../context.ts";
import { visibleAssetProject } from "./latest.ts";
import { BUCKET_5M_MS, DAY_MS, HISTORY_DEFAULT_RANGE_MS, HISTORY_MAX_RANGE_DAYS } from "./limits.ts";
import { telemetryService } from "./service.ts";

/** Spec §2, TelemetryHistoryItem: one 5-minute window of one variable. */
export type HistoryItem = {
  bucket: string;
  variable: string;
  avg_value: number;
  min_value: number;
  max_value: number;
};

export type HistoryRange = { from?: string | undefined; to?: string | undefined };

/** [bucket, count, sum, min, max] */
type RollupRow = [number, number, number, number, number];

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

/**
 * GET /telemetry/{asset_id}/history: one item per (5-minute window, variable) with data, for the
 * windows that overlap [from, to], ascending by window then variable (spec §8: 5-minute windows).
 * Served from the 5-minute rollups, never from raw rows, so it reaches back beyond the raw
 * retention and costs one indexed range read per series.
 */
export function telemetryHistory(
  ctx: ServiceContext,
  auth: AuthContext,
  assetId: string,
  range: HistoryRange,
): HistoryItem[] {
  const { fromMs, toMs } = historyRange(ctx.clock.now().getTime(), range);
  visibleAssetProject(ctx, auth, assetId);
  const { sqlite } = ctx;
  const series = sqlite
    .prepare<[string], { id: number; variable: string }>(
      "SELECT id, variable FROM telemetry_series WHERE asset_id = ?",
    )
    .all(assetId);
  series.sort((a, b) => (a.variable < b.variable ? -1 : a.variable > b.variable ? 1 : 0));
  // Live readings reach the rollups in a pass a moment after their commit: finish it for these.
  telemetryService(ctx).rollUp(series.map((s) => s.id));
  const read = sqlite
    .prepare<[number, number, number], RollupRow>(
      `SELECT bucket, count, sum, min, max FROM telemetry_rollup_5m
       WHERE series_id = ? AND bucket >= ? AND bucket <= ? ORDER BY bucket`,
    )
    .raw();
  const firstBucket = fromMs - (fromMs % BUCKET_5M_MS);
  const lists = series.map((s) => read.all(s.id, firstBucket, toMs));

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
