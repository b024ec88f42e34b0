import { randomUUID } from "node:crypto";
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

describe("GET /api/telemetry/{asset_id}", () => {
  let t: TestServer;
  let f: Field;
  beforeAll(async () => {
    t = await TestServer.start();
    f = await field(t);
  });
  afterAll(async () => t.stop());

  const latest = (asset: string, query = "", token = f.operador) =>
    t.request<StoredPayload[] & ErrorBody>(`/api/telemetry/${asset}${query}`, { token });

  it("groups readings by timestamp, newest first; limit counts payloads", async () => {
    const asset = await t.asset(f.projectId);
    const base = t.clock.now().getTime() - 60_000;
    const res = await postBatch(t, f.operador, [
      {
        asset_id: asset,
        timestamp: iso(base),
        readings: [
          { variable: "p", value: 1, unit: "psi" },
          { variable: "t", value: 20 },
        ],
      },
      { asset_id: asset, timestamp: iso(base + 1_000), readings: [{ variable: "t", value: 21 }] },
      {
        asset_id: asset,
        timestamp: iso(base + 2_000),
        readings: [
          { variable: "t", value: 22 },
          { variable: "p", value: 3 },
        ],
      },
    ]);
    expect(res.status).toBe(201);
    const two = await latest(asset, "?limit=2");
    expect(two.status).toBe(200);
    expect(two.body).toEqual([
      {
        asset_id: asset,
        timestamp: iso(base + 2_000),
        readings: [
          { variable: "p", value: 3, unit: "psi" },
          { variable: "t", value: 22 },
        ],
      },
      { asset_id: asset, timestamp: iso(base + 1_000), readings: [{ variable: "t", value: 21 }] },
    ]);
    const all = await latest(asset);
    expect(all.body.map((p) => p.timestamp)).toEqual([iso(base + 2_000), iso(base + 1_000), iso(base)]);
  });

  it("returns 100 payloads by default and up to 10,000 on request", async () => {
    const asset = await t.asset(f.projectId);
    const base = t.clock.now().getTime() - 3_600_000;
    const items = Array.from({ length: 150 }, (_, i) => ({
      asset_id: asset,
      timestamp: iso(base + i * 1_000),
      readings: [{ variable: "q", value: i }],
    }));
    expect((await postBatch(t, f.operador, items)).status).toBe(201);
    const byDefault = await latest(asset);
    expect(byDefault.body).toHaveLength(100);
    expect(byDefault.body[0]?.readings).toEqual([{ variable: "q", value: 149 }]);
    expect(byDefault.body[99]?.readings).toEqual([{ variable: "q", value: 50 }]);
    expect((await latest(asset, "?limit=10000")).body).toHaveLength(150);
    expect((await latest(asset, "?limit=1")).body).toHaveLength(1);
  });

  it("is an empty list for an asset without telemetry", async () => {
    const asset = await t.asset(f.projectId);
    const res = await latest(asset);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
  });

  it.each(["0", "10001", "-1", "1.5", "abc", ""])("400 for limit=%s", async (limit) => {
    const res = await latest(f.assetId, `?limit=${limit}`);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^limit: must be an integer from 1 to 10000/);
  });

  it("400 for an asset_id that is not a UUID", async () => {
    const res = await latest("well-7");
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^asset_id: /);
  });

  it("404 for an unknown asset and for an asset outside the caller's projects", async () => {
    expect((await latest(randomUUID())).status).toBe(404);
    const foreign = await latest(f.foreignAssetId);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ error: "NotFound", message: "asset not found" });
    expect((await latest(f.foreignAssetId, "", f.admin)).status).toBe(200);
  });

  it("401 without a token, 403 for anh_reader (no telemetry:read)", async () => {
    expect((await t.request(`/api/telemetry/${f.assetId}`)).status).toBe(401);
    const res = await latest(f.assetId, "", f.reader);
    expect(res.status).toBe(403);
    expect(res.body.error).toBe("Forbidden");
  });
});
