import { describe, expect, it } from "vitest";
import { historyColumns, rawColumns } from "./trend-data.ts";
import { openingRange, RANGE_MS, trendSource } from "./trend-source.ts";

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

describe("the range a trend opens on", () => {
  const now = Date.parse("2025-03-10T12:00:00Z");
  const ago = (ms: number) => now - ms;
  it("is the last hour when the variable has less than a day of data that reaches it", () => {
    expect(openingRange(now, ago(5_000), false)).toBe("1h");
  });
  it("is 24 h with a day of data or more, or when the newest reading is older than an hour", () => {
    expect(openingRange(now, ago(5_000), true)).toBe("24h");
    expect(openingRange(now, ago(3 * RANGE_MS["1h"]), false)).toBe("24h");
    expect(openingRange(now, null, false)).toBe("24h");
  });
  it("reaches back to the newest reading when it is older than a day", () => {
    expect(openingRange(now, ago(2 * RANGE_MS["24h"]), true)).toBe("7d");
    expect(openingRange(now, ago(10 * RANGE_MS["24h"]), true)).toBe("30d");
  });
});
