import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AlarmDto } from "../../services/alarms/alarm-dto.ts";
import {
  type AlarmWorld,
  alarmWorld,
  createRule,
  expectError,
  sendTelemetry,
} from "../../testing/fixtures/alarm-fixtures.ts";
import { TestServer } from "../../testing/harness.ts";

describe("alarms: 400, 401, 403, 404", () => {
  let t: TestServer;
  let w: AlarmWorld;
  let alarmId: string;
  let foreignAlarmId: string;

  beforeAll(async () => {
    t = await TestServer.start();
    w = await alarmWorld(t);
    await createRule(t, { project_id: w.projectId });
    await createRule(t, { project_id: w.foreignProjectId });
    await sendTelemetry(t, w.assetId, 0, { pressure: 150 });
    await sendTelemetry(t, w.foreignAssetId, 0, { pressure: 150 });
    const mine = await t.request<AlarmDto[]>(`/api/alarms?project_id=${w.projectId}`, { token: w.admin });
    const theirs = await t.request<AlarmDto[]>(`/api/alarms?project_id=${w.foreignProjectId}`, {
      token: w.admin,
    });
    alarmId = mine.body[0]?.id ?? "";
    foreignAlarmId = theirs.body[0]?.id ?? "";
    expect(alarmId).not.toBe("");
    expect(foreignAlarmId).not.toBe("");
  });
  afterAll(async () => t.stop());

  const acked = async (id: string) => (await t.server.store.alarms.alarm(id))?.acknowledged;

  it("every route is a 401 without a token or with a bad one", async () => {
    for (const [path, method] of [
      [`/api/alarms?project_id=${w.projectId}`, "GET"],
      [`/api/alarms/history?project_id=${w.projectId}`, "GET"],
      [`/api/alarms/${alarmId}/ack`, "POST"],
    ] as const) {
      expectError(await t.request(path, { method }), 401, "Unauthorized");
      expectError(await t.request(path, { method, token: "x.y.z" }), 401, "Unauthorized");
    }
    expect(await acked(alarmId)).toBe(false);
  });

  it("an anh_reader may neither list nor acknowledge alarms (403)", async () => {
    const token = w.reader.token;
    expectError(await t.request(`/api/alarms?project_id=${w.projectId}`, { token }), 403, "Forbidden");
    expectError(
      await t.request(`/api/alarms/history?project_id=${w.projectId}`, { token }),
      403,
      "Forbidden",
    );
    expectError(await t.request(`/api/alarms/${alarmId}/ack`, { method: "POST", token }), 403, "Forbidden");
    expect(await acked(alarmId)).toBe(false);
  });

  it("an operador may list and read history (alarms:read)", async () => {
    const token = w.operador.token;
    const list = await t.request<AlarmDto[]>(`/api/alarms?project_id=${w.projectId}`, { token });
    expect(list.status).toBe(200);
    expect(list.body.map((a) => a.id)).toEqual([alarmId]);
    expect((await t.request(`/api/alarms/history?project_id=${w.projectId}`, { token })).status).toBe(200);
  });

  it("GET /alarms and /alarms/history need a UUID project_id (400)", async () => {
    for (const base of ["/api/alarms", "/api/alarms/history"]) {
      const missing = await t.request<{ message: string }>(base, { token: w.admin });
      expectError(missing, 400, "ValidationFailed");
      expect(missing.body.message).toContain("project_id:");
      expectError(await t.request(`${base}?project_id=42`, { token: w.admin }), 400, "ValidationFailed");
    }
  });

  it.each([
    ["from", "from=yesterday"],
    ["to", "to=2025-13-01T00:00:00Z"],
    ["from", "from=2025-02-01T00:00:00Z&to=2025-01-01T00:00:00Z"],
    ["limit", "limit=0"],
    ["limit", "limit=10001"],
    ["limit", "limit=1.5"],
    ["limit", "limit=ten"],
    ["asset_id", "asset_id=well-1"],
    ["severity", "severity=urgent"],
    ["alarm_type", "alarm_type=very_high"],
    ["format", "format=xml"],
  ])("history with a bad %s (%s) is a 400 naming it", async (field, query) => {
    const res = await t.request<{ message: string }>(
      `/api/alarms/history?project_id=${w.projectId}&${query}`,
      {
        token: w.admin,
      },
    );
    expectError(res, 400, "ValidationFailed");
    expect(res.body.message).toContain(`${field}:`);
  });

  it("a project outside the caller's, or unknown, is a 404 on the list and the history", async () => {
    const token = w.operador.token;
    for (const base of ["/api/alarms", "/api/alarms/history"]) {
      expectError(await t.request(`${base}?project_id=${w.foreignProjectId}`, { token }), 404, "NotFound");
      expectError(await t.request(`${base}?project_id=${randomUUID()}`, { token: w.admin }), 404, "NotFound");
    }
  });

  it("history filtered by an asset of another project, or an unknown one, is a 404", async () => {
    const history = (assetId: string, token: string) =>
      t.request(`/api/alarms/history?project_id=${w.projectId}&asset_id=${assetId}`, { token });
    expectError(await history(w.foreignAssetId, w.admin), 404, "NotFound");
    expectError(await history(w.foreignAssetId, w.operador.token), 404, "NotFound");
    expectError(await history(randomUUID(), w.admin), 404, "NotFound");
    expect((await history(w.assetId, w.operador.token)).status).toBe(200);
  });

  it("acknowledging an unknown alarm, or another project's, is a 404 and changes nothing", async () => {
    const token = w.operador.token;
    expectError(
      await t.request(`/api/alarms/${randomUUID()}/ack`, { method: "POST", token }),
      404,
      "NotFound",
    );
    expectError(
      await t.request(`/api/alarms/${foreignAlarmId}/ack`, { method: "POST", token }),
      404,
      "NotFound",
    );
    expect(await acked(foreignAlarmId)).toBe(false);
  });

  it("a non-UUID alarm id is a 400", async () => {
    expectError(
      await t.request("/api/alarms/abc/ack", { method: "POST", token: w.admin }),
      400,
      "ValidationFailed",
    );
  });
});
