import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Field,
  field,
  type HistoryItem,
  iso,
  postBatch,
  type StoredPayload,
  storedCount,
} from "../../testing/fixtures/telemetry-fixtures.ts";
import { TestServer } from "../../testing/harness.ts";

const DAY = 86_400_000;

describe("raw retention (TELEMETRY_RETENTION_DAYS)", () => {
  let t: TestServer;
  let f: Field;
  /** The superadmin's, renewed after the clock moves past the access token's lifetime. */
  let token: string;
  const relogin = async () => {
    const { email, password } = await t.admin();
    const res = await t.login(email, password);
    return res.body.token;
  };
  beforeAll(async () => {
    t = await TestServer.start({ TELEMETRY_RETENTION_DAYS: "2" });
    f = await field(t);
  });
  afterAll(async () => t.stop());

  it("deletes raw readings older than the window and keeps their rollups", async () => {
    const asset = await t.asset(f.projectId);
    const hourAgo = t.clock.now().getTime() - 60 * 60_000;
    const start = hourAgo - (hourAgo % 300_000);
    const res = await postBatch(
      t,
      f.operador,
      Array.from({ length: 12 }, (_, i) => ({
        asset_id: asset,
        timestamp: iso(start + i * 60_000),
        readings: [{ variable: "v", value: i }],
      })),
    );
    expect(res.body).toEqual({ accepted: 12, duplicates: 0 });
    const historyQuery = `/api/telemetry/${asset}/history?from=${iso(start)}&to=${iso(start + 12 * 60_000)}`;
    const before = await t.request<HistoryItem[]>(historyQuery, { token: f.operador });

    // Three days later the readings are older than the two-day window (and tokens have expired).
    t.clock.advance(3 * DAY);
    token = await relogin();
    const fresh = t.clock.now().getTime() - 60_000;
    await postBatch(t, token, [
      { asset_id: asset, timestamp: iso(fresh), readings: [{ variable: "v", value: 99 }] },
    ]);
    expect(await storedCount(t, asset)).toBe(13);
    const deleted = await t.server.telemetry.runRetention();
    expect(deleted).toBeGreaterThanOrEqual(12);
    expect(await storedCount(t, asset)).toBe(1);

    const latest = await t.request<StoredPayload[]>(`/api/telemetry/${asset}?limit=100`, { token });
    expect(latest.body.map((p) => p.timestamp)).toEqual([iso(fresh)]);
    const after = await t.request<HistoryItem[]>(historyQuery, { token });
    expect(after.status).toBe(200);
    expect(before.body).toHaveLength(3);
    expect(after.body).toEqual(before.body);
  });

  it("refuses readings already older than the window (400): they could not be deduplicated", async () => {
    const res = await postBatch(t, token, [
      {
        asset_id: f.assetId,
        timestamp: iso(t.clock.now().getTime() - 2 * DAY - 60_000),
        readings: [{ variable: "v", value: 1 }],
      },
    ]);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^items\.0\.timestamp: is older than the raw retention window/);
  });
});
