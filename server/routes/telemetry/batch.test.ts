import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { instantsOfBatch } from "../../../shared/telemetry/batch.ts";
import type { TelemetryEvent } from "../../services/events.ts";
import {
  ago,
  type Field,
  field,
  iso,
  postBatch,
  type StoredPayload,
  storedCount,
  usagePoints,
} from "../../testing/fixtures/telemetry-fixtures.ts";
import { TestServer } from "../../testing/harness.ts";

describe("POST /api/telemetry/batch", () => {
  let t: TestServer;
  let f: Field;
  beforeAll(async () => {
    t = await TestServer.start();
    f = await field(t);
  });
  afterAll(async () => t.stop());

  const item = (asset: string, minutesAgo: number, values: Record<string, number>) => ({
    asset_id: asset,
    timestamp: ago(t, minutesAgo),
    readings: Object.entries(values).map(([variable, value]) => ({ variable, value })),
  });

  it("stores the payloads of several assets together, in one event", async () => {
    const [a, b] = [await t.asset(f.projectId), await t.asset(f.projectId)];
    const events: TelemetryEvent[] = [];
    const listener = (e: TelemetryEvent) => {
      if (e.series.some((s) => s.assetId === a || s.assetId === b)) events.push(e);
    };
    t.server.context.events.on("telemetry", listener);
    try {
      const usage = await usagePoints(t, f.projectId);
      const res = await postBatch(t, f.operador, [
        item(a, 3, { p: 1, q: 2 }),
        item(a, 2, { p: 3 }),
        item(b, 2, { level: 4 }),
      ]);
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ accepted: 4, duplicates: 0 });
      expect(await storedCount(t, a)).toBe(3);
      expect(await storedCount(t, b)).toBe(1);
      expect(await usagePoints(t, f.projectId)).toBe(usage + 4);
      expect(events).toHaveLength(1);
      expect(events.flatMap((e) => instantsOfBatch(e)).map((i) => [i.assetId, i.readings.length])).toEqual([
        [a, 2],
        [a, 1],
        [b, 1],
      ]);
    } finally {
      t.server.context.events.off("telemetry", listener);
    }
  });

  it("counts a reading repeated across items once: the first wins", async () => {
    const a = await t.asset(f.projectId);
    const timestamp = ago(t, 4);
    const res = await postBatch(t, f.operador, [
      { asset_id: a, timestamp, readings: [{ variable: "p", value: 1 }] },
      { asset_id: a, timestamp, readings: [{ variable: "p", value: 2 }] },
    ]);
    expect(res.body).toEqual({ accepted: 1, duplicates: 1 });
    const latest = await t.request<StoredPayload[]>(`/api/telemetry/${a}`, { token: f.operador });
    expect(latest.body).toEqual([{ asset_id: a, timestamp, readings: [{ variable: "p", value: 1 }] }]);
  });

  describe("all or nothing: one bad item stores nothing and is named", () => {
    it.each([
      ["a value that is not a number", { p: "x" }, /^items\.1\.readings\.0\.value: /],
      ["an empty readings array", null, /^items\.1\.readings: must contain at least one reading/],
    ])("400 for %s", async (_name, bad, message) => {
      const [a, b] = [await t.asset(f.projectId), await t.asset(f.projectId)];
      const usage = await usagePoints(t, f.projectId);
      const second = bad
        ? { asset_id: b, timestamp: ago(t, 1), readings: [{ variable: "p", value: bad.p }] }
        : { asset_id: b, timestamp: ago(t, 1), readings: [] };
      const res = await postBatch(t, f.operador, [item(a, 2, { p: 1, q: 2 }), second, item(a, 1, { p: 3 })]);
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(message);
      expect(await storedCount(t, a)).toBe(0);
      expect(await storedCount(t, b)).toBe(0);
      expect(await usagePoints(t, f.projectId)).toBe(usage);
    });

    it("400 for a timestamp too far in the future, naming items.2.timestamp", async () => {
      const a = await t.asset(f.projectId);
      const res = await postBatch(t, f.operador, [
        item(a, 2, { p: 1 }),
        item(a, 1, { p: 2 }),
        {
          asset_id: a,
          timestamp: iso(t.clock.now().getTime() + 10 * 60_000),
          readings: [{ variable: "p", value: 3 }],
        },
      ]);
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/^items\.2\.timestamp: must not be more than 5 minutes ahead/);
      expect(await storedCount(t, a)).toBe(0);
    });

    it("400 for a malformed asset_id", async () => {
      const res = await postBatch(t, f.operador, [item(f.assetId, 1, { p: 1 }), item("nope", 1, { p: 1 })]);
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/^items\.1\.asset_id: /);
    });

    it("404 for an unknown or foreign asset, naming the item", async () => {
      const a = await t.asset(f.projectId);
      for (const bad of [randomUUID(), f.foreignAssetId]) {
        const res = await postBatch(t, f.operador, [item(a, 2, { p: 1 }), item(bad, 1, { p: 1 })]);
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ error: "NotFound", message: "items.1.asset_id: asset not found" });
      }
      expect(await storedCount(t, a)).toBe(0);
      expect(await storedCount(t, f.foreignAssetId)).toBe(0);
    });
  });

  it("400 without items or with none", async () => {
    for (const body of [{}, { items: [] }, { items: "x" }]) {
      const res = await t.request<{ message: string }>("/api/telemetry/batch", { token: f.operador, body });
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/^items: /);
    }
  });

  it("accepts exactly 10,000 readings and refuses 10,001 with 413, storing nothing", async () => {
    const a = await t.asset(f.projectId);
    const readings = (n: number, offset: number) =>
      Array.from({ length: n }, (_, i) => ({ variable: `v${offset + i}`, value: i }));
    const items = (last: number) => [
      { asset_id: a, timestamp: ago(t, 2), readings: readings(5_000, 0) },
      { asset_id: a, timestamp: ago(t, 1), readings: readings(last, 0) },
    ];
    const tooMany = await postBatch(t, f.operador, items(5_001));
    expect(tooMany.status).toBe(413);
    expect(tooMany.body.error).toBe("PayloadTooLarge");
    expect(await storedCount(t, a)).toBe(0);
    const exactly = await postBatch(t, f.operador, items(5_000));
    expect(exactly.status).toBe(201);
    expect(exactly.body).toEqual({ accepted: 10_000, duplicates: 0 });
    expect(await storedCount(t, a)).toBe(10_000);
  });

  it("401 without a token, 403 for anh_reader", async () => {
    const items = [item(f.assetId, 1, { p: 1 })];
    expect((await t.request("/api/telemetry/batch", { body: { items } })).status).toBe(401);
    const res = await postBatch(t, f.reader, items);
    expect(res.status).toBe(403);
    expect(res.body.error).toBe("Forbidden");
  });
});
