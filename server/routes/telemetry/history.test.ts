import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ErrorBody,
  type Field,
  field,
  type HistoryItem,
  iso,
  post,
  postBatch,
  yesterdayNoon,
} from "../../testing/fixtures/telemetry-fixtures.ts";
import { TestServer } from "../../testing/harness.ts";
import { tableProbe } from "../../testing/table-probe.ts";

const MIN = 60_000;

describe("GET /api/telemetry/{asset_id}/history", () => {
  let t: TestServer;
  let f: Field;
  beforeAll(async () => {
    t = await TestServer.start();
    f = await field(t);
  });
  afterAll(async () => t.stop());

  const history = (asset: string, query = "", token = f.operador) =>
    t.request<HistoryItem[] & ErrorBody>(`/api/telemetry/${asset}/history${query}`, { token });
  const range = (from: number, to: number) => `?from=${iso(from)}&to=${iso(to)}`;

  it("aggregates exact 5-minute windows: 12:04:59.999 and 12:05:00.000 fall in different ones", async () => {
    const asset = await t.asset(f.projectId);
    const noon = yesterdayNoon(t);
    const at = (ms: number, value: number) => ({
      asset_id: asset,
      timestamp: iso(noon + ms),
      readings: [{ variable: "pressure", value }],
    });
    const res = await postBatch(t, f.operador, [
      at(0, 10),
      at(MIN, 20),
      at(5 * MIN - 1, 36),
      at(5 * MIN, 5),
      at(9 * MIN + 59_999, 7),
    ]);
    expect(res.body).toEqual({ accepted: 5, duplicates: 0 });
    const items = await history(asset, range(noon, noon + 10 * MIN));
    expect(items.status).toBe(200);
    expect(items.body).toEqual([
      { bucket: iso(noon), variable: "pressure", avg_value: 22, min_value: 10, max_value: 36 },
      { bucket: iso(noon + 5 * MIN), variable: "pressure", avg_value: 6, min_value: 5, max_value: 7 },
    ]);
  });

  it("orders by window, then variable, and only lists windows with data", async () => {
    const asset = await t.asset(f.projectId);
    const noon = yesterdayNoon(t);
    await postBatch(t, f.operador, [
      { asset_id: asset, timestamp: iso(noon + 20 * MIN), readings: [{ variable: "b", value: 2 }] },
      {
        asset_id: asset,
        timestamp: iso(noon + MIN),
        readings: [
          { variable: "b", value: 1 },
          { variable: "a", value: 1 },
        ],
      },
      { asset_id: asset, timestamp: iso(noon + 21 * MIN), readings: [{ variable: "a", value: 3 }] },
    ]);
    const items = await history(asset, range(noon, noon + 60 * MIN));
    expect(items.body.map((i) => [i.bucket, i.variable])).toEqual([
      [iso(noon), "a"],
      [iso(noon), "b"],
      [iso(noon + 20 * MIN), "a"],
      [iso(noon + 20 * MIN), "b"],
    ]);
  });

  it("lists the windows overlapping [from, to]: from inside a window includes it", async () => {
    const asset = await t.asset(f.projectId);
    const noon = yesterdayNoon(t);
    await postBatch(
      t,
      f.operador,
      [0, 5, 10, 15].map((m) => ({
        asset_id: asset,
        timestamp: iso(noon + m * MIN),
        readings: [{ variable: "v", value: m }],
      })),
    );
    const items = await history(asset, range(noon + 7 * MIN, noon + 10 * MIN));
    expect(items.body.map((i) => i.bucket)).toEqual([iso(noon + 5 * MIN), iso(noon + 10 * MIN)]);
    const same = await history(asset, range(noon + 11 * MIN, noon + 11 * MIN));
    expect(same.body.map((i) => i.bucket)).toEqual([iso(noon + 10 * MIN)]);
  });

  it("covers the last 24 hours by default; `from` alone runs to now", async () => {
    const asset = await t.asset(f.projectId);
    const now = t.clock.now().getTime();
    await postBatch(t, f.operador, [
      { asset_id: asset, timestamp: iso(now - 25 * 60 * MIN), readings: [{ variable: "v", value: 1 }] },
      { asset_id: asset, timestamp: iso(now - 60 * MIN), readings: [{ variable: "v", value: 2 }] },
    ]);
    const byDefault = await history(asset);
    expect(byDefault.body.map((i) => i.avg_value)).toEqual([2]);
    const fromOnly = await history(asset, `?from=${iso(now - 26 * 60 * MIN)}`);
    expect(fromOnly.body.map((i) => i.avg_value)).toEqual([1, 2]);
    const toOnly = await history(asset, `?to=${iso(now - 2 * 60 * MIN)}`);
    expect(toOnly.body.map((i) => i.avg_value)).toEqual([1]);
  });

  it("includes live readings at once, and a late reading for a rolled-up window exactly once", async () => {
    const asset = await t.asset(f.projectId);
    const noon = yesterdayNoon(t);
    await post(t, f.operador, {
      asset_id: asset,
      timestamp: iso(noon + 2 * MIN),
      readings: [{ variable: "v", value: 4 }],
    });
    const first = await history(asset, range(noon, noon + 5 * MIN));
    expect(first.body).toEqual([
      { bucket: iso(noon), variable: "v", avg_value: 4, min_value: 4, max_value: 4 },
    ]);
    // Backfill into the window just read, then a replay of it.
    await post(t, f.operador, {
      asset_id: asset,
      timestamp: iso(noon + MIN),
      readings: [{ variable: "v", value: 2 }],
    });
    await post(t, f.operador, {
      asset_id: asset,
      timestamp: iso(noon + MIN),
      readings: [{ variable: "v", value: 9 }],
    });
    const second = await history(asset, range(noon, noon + 5 * MIN));
    expect(second.body).toEqual([
      { bucket: iso(noon), variable: "v", avg_value: 3, min_value: 2, max_value: 4 },
    ]);
  });

  it("keeps the hourly rollups equal to the sum of their 5-minute windows", async () => {
    const asset = await t.asset(f.projectId);
    const noon = yesterdayNoon(t);
    await postBatch(
      t,
      f.operador,
      [3, 17, 44, 59, 61].map((m) => ({
        asset_id: asset,
        timestamp: iso(noon + m * MIN),
        readings: [{ variable: "v", value: m }],
      })),
    );
    await history(asset, range(noon, noon + 2 * 60 * MIN));
    const hours = await tableProbe(t.server).query(
      `SELECT r.bucket, r.count, r.sum, r.min, r.max FROM telemetry_rollup_1h r
       JOIN telemetry_series s ON s.id = r.series_id WHERE s.asset_id = ? ORDER BY r.bucket`,
      [asset],
    );
    expect(hours).toEqual([
      { bucket: noon, count: 4, sum: 3 + 17 + 44 + 59, min: 3, max: 59 },
      { bucket: noon + 60 * MIN, count: 1, sum: 61, min: 61, max: 61 },
    ]);
  });

  describe("400", () => {
    const now = () => t.clock.now().getTime();
    it.each([
      ["from after to", () => range(now() - MIN, now() - 2 * MIN), /^from: must not be after to/],
      [
        "a range over 366 days",
        () => range(now() - 367 * 86_400_000, now()),
        /^to: the range from\.\.to must not exceed 366 days/,
      ],
      ["a malformed from", () => "?from=last-week", /^from: /],
      ["a malformed to", () => "?to=2025-13-01T00:00:00Z", /^to: /],
      ["a from without offset", () => "?from=2025-01-01T00:00:00", /^from: /],
    ])("for %s", async (_name, query, message) => {
      const res = await history(f.assetId, query());
      expect(res.status).toBe(400);
      expect(res.body.error).toBe("ValidationFailed");
      expect(res.body.message).toMatch(message);
    });

    it("accepts exactly 366 days", async () => {
      // One reading of the clock: two could differ by a millisecond and make the range longer.
      const to = now();
      expect((await history(f.assetId, range(to - 366 * 86_400_000, to))).status).toBe(200);
    });

    it("for an asset_id that is not a UUID", async () => {
      const res = await history("tank-3");
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/^asset_id: /);
    });
  });

  it("404 for an unknown asset and for an asset outside the caller's projects", async () => {
    expect((await history(randomUUID())).status).toBe(404);
    const foreign = await history(f.foreignAssetId);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ error: "NotFound", message: "asset not found" });
  });

  it("401 without a token, 403 for anh_reader", async () => {
    expect((await t.request(`/api/telemetry/${f.assetId}/history`)).status).toBe(401);
    expect((await history(f.assetId, "", f.reader)).status).toBe(403);
  });
});
