export type TrendRange = "1h" | "24h" | "7d" | "30d";

export const RANGE_MS: Record<TrendRange, number> = {
  "1h": 3600_000,
  "24h": 86_400_000,
  "7d": 7 * 86_400_000,
  "30d": 30 * 86_400_000,
};

/** Raw readings: at most this many timestamps per request (GET /api/telemetry/{asset_id}). */
export const RAW_LIMIT = 10_000;

export type TrendSource = { kind: "raw" } | { kind: "history"; interval: "5m" | "1h" | "1d" };

/**
 * Where a trend of `spanMs` comes from: raw readings up to 2 h (7,200 one-second samples fit one
 * request), 5-minute windows up to 3 days (864), hourly up to 90 days (2,160), daily beyond. A
 * chart is a few hundred pixels wide: more points than that only cost time.
 */
export function trendSource(spanMs: number): TrendSource {
  if (spanMs <= 2 * 3600_000) return { kind: "raw" };
  if (spanMs <= 3 * 86_400_000) return { kind: "history", interval: "5m" };
  if (spanMs <= 90 * 86_400_000) return { kind: "history", interval: "1h" };
  return { kind: "history", interval: "1d" };
}

/**
 * The range a trend opens on when the user has picked none: one that shows the variable's data.
 * Less than a day of data (a fresh demo) is drawn over the last hour, not as a sliver at the right
 * edge of 24 h; otherwise the shortest range holding the newest reading.
 */
export function openingRange(now: number, newest: number | null, olderThanADay: boolean): TrendRange {
  if (newest === null) return "24h";
  if (!olderThanADay && newest >= now - RANGE_MS["1h"]) return "1h";
  if (newest >= now - RANGE_MS["24h"]) return "24h";
  return newest >= now - RANGE_MS["7d"] ? "7d" : "30d";
}
