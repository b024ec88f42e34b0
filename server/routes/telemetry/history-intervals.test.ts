import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ErrorBody,
  type Field,
  field,
  type HistoryItem,
  iso,
  postBatch,
  storedPoints,
  windowsOf,
} from "../../testing/fixtures/telemetry-fixtures.ts";
import { TestServer } from "../../testing/harness.ts";

const MIN = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;

describe("GET /api/telemetry/{asset_id}/history: interval and variable", () => {
  let t: TestServer;
  let f: Field;
  let asset: string;
  let from: number;
  let to: number;
  beforeAll(async () => {
    t = await TestServer.start();
    f = await field(t);
    asset = await t.asset(f.projectId);
    const now = t.clock.now().getTime();
    // 50 hours of readings, every 7 minutes, over three UTC days; integer values keep sums exact.
    from = now - (now % DAY) - DAY - 2 * HOUR;
    to = now - HOUR;
    const items = [];
    for (let ts = from, i = 0; ts <= to; ts += 7 * MIN, i++) {
      items.push({
        asset_id: asset,
        timestamp: iso(ts),
        readings: [
          { variable: "a", value: (i * 37) % 101 },
          ...(i % 3 === 0 ? [{ variable: "b", value: -i }] : []),
        ],
      });
    }
    expect((await postBatch(t, f.operador, items)).status).toBe(201);
  });
  afterAll(async () => t.stop());

  const history = (query: string, token = f.operador) =>
    t.request<HistoryItem[] & ErrorBody>(`/api/telemetry/${asset}/history${query}`, { token });

  /** The same windows computed straight from the stored points, as a GROUP BY would. */
  async function fromRaw(width: number, variables?: string[]): Promise<HistoryItem[]> {
    return windowsOf(await storedPoints(t, asset), width)
      .filter((w) => !variables || variables.includes(w.variable))
      .sort((a, b) => a.bucket - b.bucket || (a.variable < b.variable ? -1 : a.variable > b.variable ? 1 : 0))
      .map((w) => ({
        bucket: iso(w.bucket),
        variable: w.variable,
        avg_value: w.sum / w.count,
        min_value: w.min,
        max_value: w.max,
      }));
  }

  const wholeRange = () => `from=${iso(from)}&to=${iso(to)}`;

  it.each([
    ["5m", 5 * MIN],
    ["1h", HOUR],
    ["1d", DAY],
  ])(
    "interval=%s equals a GROUP BY over the stored points (UTC-aligned windows)",
    async (interval, width) => {
      const res = await history(`?interval=${interval}&${wholeRange()}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(await fromRaw(width));
    },
  );

  it("5m is the default (spec §8)", async () => {
    expect((await history(`?${wholeRange()}`)).body).toEqual(await fromRaw(5 * MIN));
  });

  it("1d windows are whole UTC days even when from and to cut into them", async () => {
    const cutFrom = from + HOUR;
    const cutTo = to - HOUR;
    const res = await history(`?interval=1d&from=${iso(cutFrom)}&to=${iso(cutTo)}`);
    const overlapping = (await fromRaw(DAY)).filter((d) => {
      const start = Date.parse(d.bucket);
      return start <= cutTo && start + DAY > cutFrom;
    });
    expect(new Set(overlapping.map((d) => d.bucket)).size).toBeGreaterThanOrEqual(2);
    expect(res.body).toEqual(overlapping);
    // The first day starts before `from`: its readings before cutFrom are in it.
    const firstDay = Date.parse(overlapping[0]?.bucket ?? "");
    expect(firstDay).toBeLessThan(cutFrom);
  });

  it("variable (repeatable) keeps only those variables; an unknown one matches nothing", async () => {
    expect((await history(`?interval=1h&variable=b&${wholeRange()}`)).body).toEqual(
      await fromRaw(HOUR, ["b"]),
    );
    const both = await history(`?interval=1h&variable=b&variable=a&${wholeRange()}`);
    expect(both.body).toEqual(await fromRaw(HOUR));
    const none = await history(`?interval=1d&variable=zz&${wholeRange()}`);
    expect(none.status).toBe(200);
    expect(none.body).toEqual([]);
  });

  describe("400", () => {
    it.each([
      ["an unknown interval", "?interval=15m", /^interval: must be one of 5m, 1h, 1d/],
      ["an empty interval", "?interval=", /^interval: /],
      ["an empty variable", "?variable=", /^variable/],
      [
        "over 100 variables",
        `?${Array.from({ length: 101 }, (_, i) => `variable=v${i}`).join("&")}`,
        /^variable/,
      ],
    ])("for %s", async (_name, query, message) => {
      const res = await history(query);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe("ValidationFailed");
      expect(res.body.message).toMatch(message);
    });
  });

  it("401 without a token, 403 for anh_reader, whatever the interval", async () => {
    expect((await t.request(`/api/telemetry/${asset}/history?interval=1d`)).status).toBe(401);
    expect((await history("?interval=1h", f.reader)).status).toBe(403);
  });
});
