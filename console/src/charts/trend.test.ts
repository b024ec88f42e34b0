import { describe, expect, it } from "vitest";
import { historyColumns, rawColumns } from "./trend-data.ts";
import { RANGE_MS, trendSource } from "./trend-source.ts";

describe("where a trend's points come from", () => {
  it("raw readings for 1 h, windows fit for longer ranges", () => {
    expect(trendSource(RANGE_MS["1h"])).toEqual({ kind: "raw" });
    expect(trendSource(2 * 3600_000)).toEqual({ kind: "raw" });
    expect(trendSource(RANGE_MS["24h"])).toEqual({ kind: "history", interval: "5m" });
    expect(trendSource(RANGE_MS["7d"])).toEqual({ kind: "history", interval: "1h" });
    expect(trendSource(RANGE_MS["30d"])).toEqual({ kind: "history", interval: "1h" });
    expect(trendSource(365 * 86_400_000)).toEqual({ kind: "history", interval: "1d" });
  });

  it("raw payloads, newest first, become ascending columns of the one variable", () => {
    const payloads = [
      { asset_id: "a", timestamp: "2025-01-01T00:00:02Z", readings: [{ variable: "p", value: 3 }] },
      { asset_id: "a", timestamp: "2025-01-01T00:00:01Z", readings: [{ variable: "t", value: 9 }] },
      {
        asset_id: "a",
        timestamp: "2025-01-01T00:00:00Z",
        readings: [
          { variable: "p", value: 1 },
          { variable: "t", value: 8 },
        ],
      },
    ];
    const t0 = Date.parse("2025-01-01T00:00:00Z") / 1000;
    expect(rawColumns(payloads, "p")).toEqual([
      [t0, t0 + 2],
      [1, 3],
    ]);
  });

  it("history windows become time, average, minimum and maximum columns", () => {
    const items = [
      { bucket: "2025-01-01T00:00:00Z", variable: "p", avg_value: 2, min_value: 1, max_value: 3 },
      { bucket: "2025-01-01T00:00:00Z", variable: "q", avg_value: 9, min_value: 9, max_value: 9 },
      { bucket: "2025-01-01T01:00:00Z", variable: "p", avg_value: 5, min_value: 4, max_value: 6 },
    ];
    const t0 = Date.parse("2025-01-01T00:00:00Z") / 1000;
    expect(historyColumns(items, "p")).toEqual([
      [t0, t0 + 3600],
      [2, 5],
      [1, 4],
      [3, 6],
    ]);
  });
});
