import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TelemetryEvent } from "../../services/events.ts";
import {
  ago,
  type ErrorBody,
  type Field,
  field,
  type HistoryItem,
  iso,
  post,
  type StoredPayload,
  storedCount,
  usagePoints,
} from "../../testing/fixtures/telemetry-fixtures.ts";
import { TestServer } from "../../testing/harness.ts";
import { tableProbe } from "../../testing/table-probe.ts";

describe("POST /api/telemetry", () => {
  let t: TestServer;
  let f: Field;
  beforeAll(async () => {
    t = await TestServer.start();
    f = await field(t);
  });
  afterAll(async () => t.stop());

  it("stores the readings (201 with the count) and GET shows them with their units", async () => {
    const asset = await t.asset(f.projectId);
    const timestamp = ago(t, 10);
    const res = await post(t, f.operador, {
      asset_id: asset,
      timestamp,
      readings: [
        { variable: "tubing_pressure", value: 1523.5, unit: "psi" },
        { variable: "choke", value: 32 },
      ],
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ accepted: 2, duplicates: 0 });
    const latest = await t.request<StoredPayload[]>(`/api/telemetry/${asset}`, { token: f.operador });
    expect(latest.status).toBe(200);
    expect(latest.body).toEqual([
      {
        asset_id: asset,
        timestamp,
        readings: [
          { variable: "choke", value: 32 },
          { variable: "tubing_pressure", value: 1523.5, unit: "psi" },
        ],
      },
    ]);
  });

  it("stamps readings without a timestamp with the server clock", async () => {
    const asset = await t.asset(f.projectId);
    const before = t.clock.now().getTime();
    expect(
      (await post(t, f.operador, { asset_id: asset, readings: [{ variable: "v", value: 1 }] })).status,
    ).toBe(201);
    const after = t.clock.now().getTime();
    const latest = await t.request<StoredPayload[]>(`/api/telemetry/${asset}`, { token: f.operador });
    const stamped = Date.parse(latest.body[0]?.timestamp ?? "");
    expect(stamped).toBeGreaterThanOrEqual(before);
    expect(stamped).toBeLessThanOrEqual(after);
  });

  it("counts stored points in the project's usage for this month, and duplicates not at all", async () => {
    const asset = await t.asset(f.projectId);
    const before = await usagePoints(t, f.projectId);
    const body = {
      asset_id: asset,
      timestamp: ago(t, 3),
      readings: [
        { variable: "a", value: 1 },
        { variable: "b", value: 2 },
        { variable: "c", value: 3 },
      ],
    };
    expect((await post(t, f.operador, body)).status).toBe(201);
    expect(await usagePoints(t, f.projectId)).toBe(before + 3);
    expect((await post(t, f.operador, body)).body).toEqual({ accepted: 0, duplicates: 3 });
    expect(await usagePoints(t, f.projectId)).toBe(before + 3);
  });

  it("ignores a resent reading (first write wins): not stored again, not rolled up twice", async () => {
    const asset = await t.asset(f.projectId);
    const timestamp = ago(t, 20);
    const first = await post(t, f.operador, {
      asset_id: asset,
      timestamp,
      readings: [{ variable: "p", value: 10 }],
    });
    expect(first.body).toEqual({ accepted: 1, duplicates: 0 });
    const again = await post(t, f.operador, {
      asset_id: asset,
      timestamp,
      readings: [
        { variable: "p", value: 99 },
        { variable: "q", value: 5 },
      ],
    });
    expect(again.status).toBe(201);
    expect(again.body).toEqual({ accepted: 1, duplicates: 1 });
    expect(await storedCount(t, asset)).toBe(2);
    const latest = await t.request<StoredPayload[]>(`/api/telemetry/${asset}`, { token: f.operador });
    expect(latest.body[0]?.readings).toEqual([
      { variable: "p", value: 10 },
      { variable: "q", value: 5 },
    ]);
    const history = await t.request<HistoryItem[]>(`/api/telemetry/${asset}/history`, { token: f.operador });
    expect(history.body.filter((i) => i.variable === "p")).toEqual([
      expect.objectContaining({ avg_value: 10, min_value: 10, max_value: 10 }),
    ]);
    // Resent once more after the roll-up: still counted once.
    await post(t, f.operador, { asset_id: asset, timestamp, readings: [{ variable: "p", value: 50 }] });
    const again2 = await t.request<HistoryItem[]>(`/api/telemetry/${asset}/history`, { token: f.operador });
    expect(again2.body.filter((i) => i.variable === "p")).toEqual([
      expect.objectContaining({ avg_value: 10, min_value: 10, max_value: 10 }),
    ]);
  });

  it("emits the stored part of the request as one telemetry event, after the commit, without duplicates", async () => {
    const asset = await t.asset(f.projectId);
    const events: TelemetryEvent[] = [];
    /** Counted when the event arrives (on SQLite, synchronously inside the listener). */
    const stored: Promise<number>[] = [];
    const listener = (e: TelemetryEvent) => {
      if (e.series[0]?.assetId !== asset) return;
      events.push(e);
      stored.push(storedCount(t, asset));
    };
    t.server.context.events.on("telemetry", listener);
    try {
      const timestamp = ago(t, 1);
      const ts = Date.parse(timestamp);
      const body = {
        asset_id: asset,
        timestamp,
        readings: [
          { variable: "level", value: 4.25, unit: "m" },
          { variable: "temp", value: 31 },
        ],
      };
      expect((await post(t, f.operador, body)).status).toBe(201);
      expect(events).toEqual([
        {
          source: "http",
          series: [
            { projectId: f.projectId, assetId: asset, variable: "level", unit: "m", points: [[ts, 4.25]] },
            { projectId: f.projectId, assetId: asset, variable: "temp", points: [[ts, 31]] },
          ],
        },
      ]);
      // The listener saw the rows already committed.
      expect(await Promise.all(stored)).toEqual([2]);
      expect((await post(t, f.operador, body)).body).toEqual({ accepted: 0, duplicates: 2 });
      expect(events).toHaveLength(1);
      // A reading sent without a unit carries its series' unit.
      await post(t, f.operador, { asset_id: asset, readings: [{ variable: "level", value: 4.5 }] });
      expect(events[1]?.series).toEqual([
        expect.objectContaining({ variable: "level", unit: "m", points: [[expect.any(Number), 4.5]] }),
      ]);
    } finally {
      t.server.context.events.off("telemetry", listener);
    }
  });

  it("keeps the series' last_ts/last_value at the newest reading, whatever the arrival order", async () => {
    const asset = await t.asset(f.projectId);
    const newest = ago(t, 2);
    await post(t, f.operador, {
      asset_id: asset,
      timestamp: newest,
      readings: [{ variable: "p", value: 7 }],
    });
    await post(t, f.operador, {
      asset_id: asset,
      timestamp: ago(t, 30),
      readings: [{ variable: "p", value: 1 }],
    });
    const rows = await tableProbe(t.server).query(
      "SELECT last_ts, last_value FROM telemetry_series WHERE asset_id = ? AND variable = 'p'",
      [asset],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]).toEqual({ last_ts: Date.parse(newest), last_value: 7 });
  });

  it("accepts a timestamp up to 5 minutes ahead of the server clock", async () => {
    const asset = await t.asset(f.projectId);
    const res = await post(t, f.operador, {
      asset_id: asset,
      timestamp: iso(t.clock.now().getTime() + 4 * 60_000),
      readings: [{ variable: "v", value: 1 }],
    });
    expect(res.status).toBe(201);
  });

  describe("400 for each bad field, and nothing stored", () => {
    const reading = { variable: "v", value: 1 };
    const cases: [string, (asset: string) => unknown, RegExp][] = [
      ["asset_id not a UUID", () => ({ asset_id: "well-1", readings: [reading] }), /^asset_id: /],
      ["asset_id missing", () => ({ readings: [reading] }), /^asset_id: /],
      ["readings missing", (a) => ({ asset_id: a }), /^readings: /],
      [
        "readings empty",
        (a) => ({ asset_id: a, readings: [] }),
        /^readings: must contain at least one reading/,
      ],
      ["readings not an array", (a) => ({ asset_id: a, readings: reading }), /^readings: /],
      [
        "value a string",
        (a) => ({ asset_id: a, readings: [{ variable: "v", value: "12" }] }),
        /readings\.0\.value: /,
      ],
      [
        "value the string NaN",
        (a) => ({ asset_id: a, readings: [{ variable: "v", value: "NaN" }] }),
        /readings\.0\.value/,
      ],
      [
        "value null",
        (a) => ({ asset_id: a, readings: [{ variable: "v", value: null }] }),
        /readings\.0\.value/,
      ],
      ["value missing", (a) => ({ asset_id: a, readings: [{ variable: "v" }] }), /readings\.0\.value/],
      [
        "variable empty",
        (a) => ({ asset_id: a, readings: [{ variable: "", value: 1 }] }),
        /readings\.0\.variable: /,
      ],
      [
        "variable over 128 characters",
        (a) => ({ asset_id: a, readings: [{ variable: "x".repeat(129), value: 1 }] }),
        /readings\.0\.variable: must be at most 128/,
      ],
      [
        "variable repeated in one payload",
        (a) => ({ asset_id: a, readings: [reading, { variable: "v", value: 2 }] }),
        /readings\.1\.variable: "v" appears more than once/,
      ],
      [
        "variable with a NUL character (PostgreSQL's text cannot hold it)",
        (a) => ({ asset_id: a, readings: [{ variable: "p\u0000", value: 1 }] }),
        /readings\.0\.variable: must not contain the NUL character/,
      ],
      [
        "unit with a NUL character",
        (a) => ({ asset_id: a, readings: [{ variable: "v", value: 1, unit: "\u0000" }] }),
        /readings\.0\.unit: must not contain the NUL character/,
      ],
      [
        "unit over 32 characters",
        (a) => ({ asset_id: a, readings: [{ variable: "v", value: 1, unit: "u".repeat(33) }] }),
        /readings\.0\.unit: /,
      ],
      [
        "timestamp malformed",
        (a) => ({ asset_id: a, timestamp: "yesterday", readings: [reading] }),
        /^timestamp: /,
      ],
      [
        "timestamp not a calendar date",
        (a) => ({ asset_id: a, timestamp: "2025-02-30T00:00:00Z", readings: [reading] }),
        /^timestamp: /,
      ],
      [
        "timestamp without offset",
        (a) => ({ asset_id: a, timestamp: "2025-01-01T00:00:00", readings: [reading] }),
        /^timestamp: /,
      ],
    ];
    it.each(cases)("%s", async (_name, body, message) => {
      const asset = await t.asset(f.projectId);
      const res = await post(t, f.operador, body(asset));
      expect(res.status).toBe(400);
      expect(res.body.error).toBe("ValidationFailed");
      expect(res.body.message).toMatch(message);
      expect(await storedCount(t, asset)).toBe(0);
    });

    it("timestamp more than 5 minutes in the future", async () => {
      const asset = await t.asset(f.projectId);
      const res = await post(t, f.operador, {
        asset_id: asset,
        timestamp: iso(t.clock.now().getTime() + 6 * 60_000),
        readings: [reading],
      });
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(
        /^timestamp: must not be more than 5 minutes ahead of the server clock/,
      );
      expect(await storedCount(t, asset)).toBe(0);
    });

    it("timestamp older than the raw retention window", async () => {
      const asset = await t.asset(f.projectId);
      const days = t.config.TELEMETRY_RETENTION_DAYS;
      const res = await post(t, f.operador, {
        asset_id: asset,
        timestamp: iso(t.clock.now().getTime() - (days + 1) * 86_400_000),
        readings: [reading],
      });
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/^timestamp: is older than the raw retention window/);
    });

    it("Infinity (JSON 1e999) is not a finite number", async () => {
      const asset = await t.asset(f.projectId);
      const res = await t.request<ErrorBody>("/api/telemetry", {
        token: f.operador,
        rawBody: `{"asset_id":"${asset}","readings":[{"variable":"v","value":1e999}]}`,
      });
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/readings\.0\.value/);
      expect(await storedCount(t, asset)).toBe(0);
    });

    it("NaN (not JSON) and malformed JSON", async () => {
      const asset = await t.asset(f.projectId);
      for (const rawBody of [`{"asset_id":"${asset}","readings":[{"variable":"v","value":NaN}]}`, "{"]) {
        const res = await t.request<ErrorBody>("/api/telemetry", { token: f.operador, rawBody });
        expect(res.status).toBe(400);
        expect(typeof res.body.message).toBe("string");
      }
      expect(await storedCount(t, asset)).toBe(0);
    });
  });

  it("413 beyond 10,000 readings in one request, nothing stored", async () => {
    const asset = await t.asset(f.projectId);
    const readings = Array.from({ length: 10_001 }, (_, i) => ({ variable: `v${i}`, value: i }));
    const res = await post(t, f.operador, { asset_id: asset, readings });
    expect(res.status).toBe(413);
    expect(res.body.error).toBe("PayloadTooLarge");
    expect(res.body.message).toMatch(/at most 10000 readings per request; this one has 10001/);
    expect(await storedCount(t, asset)).toBe(0);
  });

  it("401 without a token or with a bad one", async () => {
    const body = { asset_id: f.assetId, readings: [{ variable: "v", value: 1 }] };
    expect((await t.request("/api/telemetry", { body })).status).toBe(401);
    expect((await post(t, "not-a-jwt", body)).status).toBe(401);
  });

  it("403 for anh_reader (no telemetry:write), whatever the body", async () => {
    const res = await post(t, f.reader, { asset_id: f.assetId, readings: [{ variable: "v", value: 1 }] });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe("Forbidden");
    expect((await post(t, f.reader, { nonsense: true })).status).toBe(403);
  });

  it("404 for an unknown asset and for an asset of a project outside the caller's", async () => {
    const unknown = await post(t, f.operador, {
      asset_id: randomUUID(),
      readings: [{ variable: "v", value: 1 }],
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: "NotFound", message: "asset_id: asset not found" });
    const foreign = await post(t, f.operador, {
      asset_id: f.foreignAssetId,
      readings: [{ variable: "v", value: 1 }],
    });
    expect(foreign.status).toBe(404);
    expect(await storedCount(t, f.foreignAssetId)).toBe(0);
    // An admin sees every project.
    const admin = await post(t, f.admin, {
      asset_id: f.foreignAssetId,
      readings: [{ variable: "v", value: 1 }],
    });
    expect(admin.status).toBe(201);
  });

  it("404 once the asset is deleted (the cached lookup is dropped with it)", async () => {
    const asset = await t.asset(f.projectId);
    expect(
      (await post(t, f.operador, { asset_id: asset, readings: [{ variable: "v", value: 1 }] })).status,
    ).toBe(201);
    const deleted = await t.request(`/api/edge/assets/${asset}`, { method: "DELETE", token: f.admin });
    expect(deleted.status).toBe(204);
    const res = await post(t, f.operador, { asset_id: asset, readings: [{ variable: "v", value: 2 }] });
    expect(res.status).toBe(404);
    expect(await storedCount(t, asset)).toBe(0);
  });
});
