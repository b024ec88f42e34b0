import { describe, expect, it } from "vitest";
import type { HistoryItem } from "../../services/telemetry/history.ts";
import { historyJson } from "./history-json.ts";

const item = (bucket: string, variable: string, avg: number, min = avg, max = avg): HistoryItem => ({
  bucket,
  variable,
  avg_value: avg,
  min_value: min,
  max_value: max,
});

describe("historyJson", () => {
  it("writes exactly what JSON.stringify writes", () => {
    const cases: HistoryItem[][] = [
      [],
      [item("2026-01-01T00:00:00.000Z", "p", 1)],
      [
        item("2026-01-01T00:00:00.000Z", 'presión "cabeza" \\ \n\t\u0001 😀', 1 / 3, -0, 1e21),
        item("2026-01-01T00:00:00.000Z", "b", 5e-324, -1e15, 1e15),
        item(
          "2026-01-01T00:05:00.000Z",
          'presión "cabeza" \\ \n\t\u0001 😀',
          0.1 + 0.2,
          -123.456,
          2 ** 53 + 2,
        ),
        item(
          "2026-01-01T00:05:00.000Z",
          "\ud800 lone surrogate",
          Number.NaN,
          Number.POSITIVE_INFINITY,
          Number.NEGATIVE_INFINITY,
        ),
        item("2026-01-01T00:10:00.000Z", "b", 1e-7, 123e-20, 2 ** 60),
      ],
    ];
    for (const items of cases) expect(historyJson(items)).toBe(JSON.stringify(items));
  });

  it("matches JSON.stringify on 2,000 random windows (fixed seed)", () => {
    let state = 0x4157;
    const random = () => {
      state = (state * 1103515245 + 12345) & 0x7fffffff;
      return state / 0x7fffffff;
    };
    const names = ["a", "b", 'tag_"x"', "ü", "\u2028"];
    const items: HistoryItem[] = [];
    for (let i = 0; i < 2000; i++) {
      const bucket = new Date(Date.UTC(2026, 0, 1) + Math.floor(i / 3) * 300_000).toISOString();
      const scale = 10 ** Math.floor(random() * 40 - 20);
      items.push(item(bucket, names[Math.floor(random() * names.length)] ?? "a", (random() - 0.5) * scale));
    }
    expect(historyJson(items)).toBe(JSON.stringify(items));
  });
});
