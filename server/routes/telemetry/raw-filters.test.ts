import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ErrorBody,
  type Field,
  field,
  iso,
  postBatch,
  type StoredPayload,
} from "../../testing/fixtures/telemetry-fixtures.ts";
import { TestServer } from "../../testing/harness.ts";

const SEC = 1_000;

describe("GET /api/telemetry/{asset_id}: from, to and variable (JSON)", () => {
  let t: TestServer;
  let f: Field;
  let asset: string;
  let base: number;
  beforeAll(async () => {
    t = await TestServer.start();
    f = await field(t);
    asset = await t.asset(f.projectId);
    base = t.clock.now().getTime() - 3_600_000;
    // Timestamps base+0 … base+9 s; p every second, t on even seconds, q on 5 s only.
    const items = Array.from({ length: 10 }, (_, i) => ({
      asset_id: asset,
      timestamp: iso(base + i * SEC),
      readings: [
        { variable: "p", value: i, unit: "psi" },
        ...(i % 2 === 0 ? [{ variable: "t", value: 100 + i }] : []),
        ...(i === 5 ? [{ variable: "q", value: 55 }] : []),
      ],
    }));
    expect((await postBatch(t, f.operador, items)).status).toBe(201);
  });
  afterAll(async () => t.stop());

  const get = (query: string, token = f.operador) =>
    t.request<StoredPayload[] & ErrorBody>(`/api/telemetry/${asset}${query}`, { token });

  it("bounds the timestamps to [from, to], both inclusive, newest first", async () => {
    const res = await get(`?from=${iso(base + 3 * SEC)}&to=${iso(base + 6 * SEC)}`);
    expect(res.status).toBe(200);
    expect(res.body.map((p) => p.timestamp)).toEqual([6, 5, 4, 3].map((s) => iso(base + s * SEC)));
    expect(res.body[1]?.readings).toEqual([
      { variable: "p", value: 5, unit: "psi" },
      { variable: "q", value: 55 },
    ]);
  });

  it("`from` alone runs to the newest, `to` alone from the oldest; limit still counts timestamps", async () => {
    const from = await get(`?from=${iso(base + 8 * SEC)}`);
    expect(from.body.map((p) => p.timestamp)).toEqual([iso(base + 9 * SEC), iso(base + 8 * SEC)]);
    const to = await get(`?to=${iso(base + 1 * SEC)}`);
    expect(to.body.map((p) => p.timestamp)).toEqual([iso(base + SEC), iso(base)]);
    const limited = await get(`?to=${iso(base + 7 * SEC)}&limit=2`);
    expect(limited.body.map((p) => p.timestamp)).toEqual([iso(base + 7 * SEC), iso(base + 6 * SEC)]);
  });

  it("variable (repeatable) keeps only those variables; payloads without them drop out", async () => {
    const one = await get("?variable=t");
    expect(one.body.map((p) => p.timestamp)).toEqual([8, 6, 4, 2, 0].map((s) => iso(base + s * SEC)));
    expect(one.body[0]?.readings).toEqual([{ variable: "t", value: 108 }]);
    const two = await get(`?variable=q&variable=t&from=${iso(base + 4 * SEC)}&to=${iso(base + 6 * SEC)}`);
    expect(two.body).toEqual([
      { asset_id: asset, timestamp: iso(base + 6 * SEC), readings: [{ variable: "t", value: 106 }] },
      { asset_id: asset, timestamp: iso(base + 5 * SEC), readings: [{ variable: "q", value: 55 }] },
      { asset_id: asset, timestamp: iso(base + 4 * SEC), readings: [{ variable: "t", value: 104 }] },
    ]);
  });

  it("a variable the asset has no readings for matches nothing (200, empty), not a 400", async () => {
    const res = await get("?variable=never-sent");
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
    expect((await get("?variable=never-sent&variable=q")).body).toHaveLength(1);
  });

  it("from = to selects one instant; a range without readings is empty", async () => {
    expect((await get(`?from=${iso(base + 2 * SEC)}&to=${iso(base + 2 * SEC)}`)).body).toHaveLength(1);
    expect((await get(`?from=${iso(base - 9 * SEC)}&to=${iso(base - SEC)}`)).body).toEqual([]);
  });

  describe("400", () => {
    it.each([
      [
        "from after to",
        () => `?from=${iso(base + 2 * SEC)}&to=${iso(base + SEC)}`,
        /^from: must not be after to/,
      ],
      ["a malformed from", () => "?from=yesterday", /^from: /],
      ["a malformed to", () => "?to=2025-02-30T25:00:00Z", /^to: /],
      ["a to without offset", () => "?to=2025-01-01T00:00:00", /^to: /],
      ["an empty variable", () => "?variable=", /^variable/],
      ["a variable over 128 characters", () => `?variable=${"v".repeat(129)}`, /^variable/],
      [
        "over 100 variables",
        () => `?${Array.from({ length: 101 }, (_, i) => `variable=v${i}`).join("&")}`,
        /^variable/,
      ],
      ["an unknown format", () => "?format=xml", /^format: must be json or csv/],
    ])("for %s", async (_name, query, message) => {
      const res = await get(query());
      expect(res.status).toBe(400);
      expect(res.body.error).toBe("ValidationFailed");
      expect(res.body.message).toMatch(message);
    });
  });
});
