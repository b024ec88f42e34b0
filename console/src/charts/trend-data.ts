import type { HistoryItem, TelemetryPayload } from "../api/types.ts";

/** uPlot's columns: seconds since the epoch, then one array per series (null where a point is missing). */
export type TrendColumns = [number[], ...(number | null)[][]];

/** Raw payloads (newest first, as the API gives them) → ascending [time, value] columns. */
export function rawColumns(payloads: readonly TelemetryPayload[], variable: string): TrendColumns {
  const xs: number[] = [];
  const ys: (number | null)[] = [];
  for (let i = payloads.length - 1; i >= 0; i--) {
    const p = payloads[i];
    const reading = p?.readings.find((r) => r.variable === variable);
    if (!p || !reading) continue;
    xs.push(Date.parse(p.timestamp) / 1000);
    ys.push(reading.value);
  }
  return [xs, ys];
}

/** History windows (ascending) → [time, avg, min, max] columns. */
export function historyColumns(items: readonly HistoryItem[], variable: string): TrendColumns {
  const xs: number[] = [];
  const avg: number[] = [];
  const min: number[] = [];
  const max: number[] = [];
  for (const item of items) {
    if (item.variable !== variable) continue;
    xs.push(Date.parse(item.bucket) / 1000);
    avg.push(item.avg_value);
    min.push(item.min_value);
    max.push(item.max_value);
  }
  return [xs, avg, min, max];
}
