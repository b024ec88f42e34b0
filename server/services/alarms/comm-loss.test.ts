import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { recordNotices, sendTelemetry } from "../../testing/fixtures/alarm-fixtures.ts";
import { TestServer } from "../../testing/harness.ts";
import { tableProbe } from "../../testing/table-probe.ts";
import type { AlarmDto } from "./alarm-dto.ts";
import type { AlarmHistoryEntry } from "./alarm-history.ts";

describe("comm_loss: an asset that reported and then went silent", () => {
  let t: TestServer;
  /** Moving the clock ages access tokens too: each test logs in again. */
  let token: string;
  beforeAll(async () => {
    t = await TestServer.start({ COMM_LOSS_SECONDS: "300" });
  });
  beforeEach(async () => {
    const admin = await t.admin();
    token = (await t.login(admin.email, admin.password)).body.token;
  });
  afterAll(async () => t.stop());

  const site = async () => {
    const projectId = await t.project(token);
    return { projectId, assetId: await t.asset(projectId, "well", token) };
  };
  const listed = async (projectId: string) => {
    const res = await t.request<AlarmDto[]>(`/api/alarms?project_id=${projectId}`, { token });
    expect(res.status).toBe(200);
    return res.body;
  };
  const commLoss = async (projectId: string) =>
    (await listed(projectId)).filter((a) => a.alarm_type === "comm_loss");

  it("is raised once the asset is silent for COMM_LOSS_SECONDS, once, and returns when data arrives", async () => {
    const { projectId, assetId } = await site();
    const silent = await t.asset(projectId, "tank", token); // never reports: never in comm_loss
    await sendTelemetry(t, assetId, 0, { pressure: 1 }, token);
    const rec = recordNotices(t);

    t.clock.advance(299_000);
    await t.server.alarms.tick();
    expect(await commLoss(projectId)).toEqual([]);

    t.clock.advance(1_000);
    await t.server.alarms.tick();
    const [alarm, ...others] = await commLoss(projectId);
    expect(others).toEqual([]);
    expect(alarm).toMatchObject({
      asset_id: assetId,
      rule_id: null,
      variable: "comm",
      value: 300,
      alarm_type: "comm_loss",
      severity: "warning",
      active: true,
      acknowledged: false,
      message: expect.stringMatching(/no data for 300 s \(limit 300 s\)$/),
    });
    expect(Date.parse(alarm?.timestamp ?? "")).toBeCloseTo(t.clock.now().getTime(), -3);

    // Still silent: no second alarm for the same asset.
    t.clock.advance(60_000);
    await t.server.alarms.tick();
    expect((await commLoss(projectId)).map((a) => a.id)).toEqual([alarm?.id]);
    expect((await listed(projectId)).some((a) => a.asset_id === silent)).toBe(false);

    // Data again: returns to normal (listed until acknowledged), history keeps the silence.
    const before = t.clock.now().getTime();
    await sendTelemetry(t, assetId, 1, { pressure: 1 }, token);
    const after = t.clock.now().getTime();
    rec.stop();
    const [returned] = await commLoss(projectId);
    expect(returned).toMatchObject({ id: alarm?.id, active: false });
    const returnedAt = Date.parse(returned?.returned_at ?? "");
    expect(returnedAt).toBeGreaterThanOrEqual(before);
    expect(returnedAt).toBeLessThanOrEqual(after);
    expect(rec.notices.map((n) => [n.event, n.alarm.alarm_type])).toEqual([
      ["raised", "comm_loss"],
      ["cleared", "comm_loss"],
    ]);
    const history = await t.request<AlarmHistoryEntry[]>(`/api/alarms/history?project_id=${projectId}`, {
      token,
    });
    expect(history.body.map((e) => [e.event, e.value])).toEqual([
      ["cleared", 360],
      ["raised", 300],
    ]);
    const acked = await t.request<AlarmDto>(`/api/alarms/${alarm?.id}/ack`, { method: "POST", token });
    expect(acked.body).toMatchObject({ acknowledged: true, active: false });
    expect(await commLoss(projectId)).toEqual([]);
  });

  it("a later silence raises a new comm_loss alarm (at most one active per asset)", async () => {
    const { projectId, assetId } = await site();
    await sendTelemetry(t, assetId, 0, { x: 1 }, token);
    t.clock.advance(301_000);
    expect(await t.server.alarms.tick()).toBeGreaterThanOrEqual(1);
    await sendTelemetry(t, assetId, 1, { x: 1 }, token);
    t.clock.advance(301_000);
    await t.server.alarms.tick();
    expect((await commLoss(projectId)).map((a) => a.active)).toEqual([true, false]);
  });

  it("an asset that keeps reporting never enters comm_loss", async () => {
    const { projectId, assetId } = await site();
    // 250 s apart (limit 300 s); three steps stay within the access token's 15 minutes.
    for (let i = 0; i < 3; i++) {
      await sendTelemetry(t, assetId, i, { x: i }, token);
      t.clock.advance(250_000);
      await t.server.alarms.tick();
    }
    expect(await commLoss(projectId)).toEqual([]);
  });

  it("a deleted asset is forgotten, not alarmed", async () => {
    const { projectId, assetId } = await site();
    await sendTelemetry(t, assetId, 0, { x: 1 }, token);
    expect((await t.request(`/api/edge/assets/${assetId}`, { method: "DELETE", token })).status).toBe(204);
    t.clock.advance(400_000);
    await t.server.alarms.tick();
    expect(await commLoss(projectId)).toEqual([]);
    expect(await tableProbe(t.server).count("alarms", { asset_id: assetId })).toBe(0);
  });
});

describe("comm_loss: the timer runs the check by itself", () => {
  let t: TestServer;
  beforeAll(async () => {
    // 1 s limit → the check runs every second (a tenth of the limit, at least 1 s).
    t = await TestServer.start({ COMM_LOSS_SECONDS: "1" });
  });
  afterAll(async () => t.stop());

  it("raises comm_loss without anyone calling tick()", async () => {
    const token = (await t.admin()).token;
    const projectId = await t.project();
    const assetId = await t.asset(projectId);
    await sendTelemetry(t, assetId, 0, { x: 1 });
    await vi.waitFor(
      async () => {
        const res = await t.request<AlarmDto[]>(`/api/alarms?project_id=${projectId}`, { token });
        expect(res.body.map((a) => a.alarm_type)).toEqual(["comm_loss"]);
      },
      { timeout: 5_000, interval: 200 },
    );
  });
});
