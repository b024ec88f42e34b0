import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AlarmDto } from "../../services/alarms/alarm-dto.ts";
import type { AlarmHistoryEntry } from "../../services/alarms/alarm-history.ts";
import {
  type AlarmWorld,
  alarmWorld,
  at,
  createRule,
  recordNotices,
  sendTelemetry,
} from "../../testing/fixtures/alarm-fixtures.ts";
import { TestServer } from "../../testing/harness.ts";

describe("alarms: the ISA-18.2 life cycle driven by telemetry", () => {
  let t: TestServer;
  let w: AlarmWorld;
  beforeAll(async () => {
    t = await TestServer.start();
    w = await alarmWorld(t);
  });
  afterAll(async () => t.stop());

  const assigned: string[] = [];
  /** A fresh project with its assets, so each test sees only its own alarms; the role users are assigned to it. */
  async function site(assets = 1) {
    const projectId = await t.project();
    assigned.push(projectId);
    for (const user of [w.supervisor, w.operador]) {
      const res = await t.request(`/api/admin/users/${user.id}/projects`, {
        method: "PUT",
        token: w.admin,
        body: { project_ids: [w.projectId, ...assigned] },
      });
      expect(res.status).toBe(200);
    }
    const assetIds: string[] = [];
    for (let i = 0; i < assets; i++) assetIds.push(await t.asset(projectId));
    return { projectId, assetIds, assetId: assetIds[0] ?? "" };
  }
  const listed = async (projectId: string) => {
    const res = await t.request<AlarmDto[]>(`/api/alarms?project_id=${projectId}`, { token: w.admin });
    expect(res.status).toBe(200);
    return res.body;
  };
  const history = async (projectId: string, query = "") => {
    const res = await t.request<AlarmHistoryEntry[]>(`/api/alarms/history?project_id=${projectId}${query}`, {
      token: w.admin,
    });
    expect(res.status).toBe(200);
    return res.body;
  };
  const ack = (id: string, token = w.admin) =>
    t.request<AlarmDto>(`/api/alarms/${id}/ack`, { method: "POST", token });

  it("raises once while the condition holds, however many readings", async () => {
    const s = await site();
    const ruleId = await createRule(t, { project_id: s.projectId, threshold: 100 });
    const rec = recordNotices(t);
    await sendTelemetry(t, s.assetId, 0, { pressure: 90 });
    for (let i = 1; i <= 25; i++) await sendTelemetry(t, s.assetId, i, { pressure: 100 + i });
    rec.stop();
    const alarms = await listed(s.projectId);
    expect(alarms).toHaveLength(1);
    expect(alarms[0]).toEqual({
      id: expect.any(String),
      project_id: s.projectId,
      asset_id: s.assetId,
      rule_id: ruleId,
      variable: "pressure",
      value: 101,
      alarm_type: "high",
      severity: "warning",
      message: "High pressure: pressure = 101 (> 100)",
      acknowledged: false,
      timestamp: at(1),
      active: true,
      returned_at: null,
      acknowledged_at: null,
      acknowledged_by: null,
      source: "server",
    });
    expect(rec.notices.map((n) => n.event)).toEqual(["raised"]);
    expect(rec.notices[0]?.alarm).toEqual(alarms[0]);
  });

  it("maps condition and severity to the alarm type", async () => {
    const s = await site();
    await createRule(t, {
      project_id: s.projectId,
      variable_alias: "a",
      condition: "gte",
      severity: "critical",
    });
    await createRule(t, { project_id: s.projectId, variable_alias: "b", condition: "lt", threshold: 10 });
    await createRule(t, {
      project_id: s.projectId,
      variable_alias: "c",
      condition: "lte",
      threshold: 10,
      severity: "critical",
    });
    await createRule(t, {
      project_id: s.projectId,
      variable_alias: "d",
      condition: "eq",
      threshold: 1,
      severity: "info",
    });
    await sendTelemetry(t, s.assetId, 0, { a: 100, b: 9, c: 10, d: 1, unrelated: 1e9 });
    const types = Object.fromEntries(
      (await listed(s.projectId)).map((a) => [a.variable, [a.alarm_type, a.severity]]),
    );
    expect(types).toEqual({
      a: ["critical_high", "critical"],
      b: ["low", "warning"],
      c: ["critical_low", "critical"],
      d: ["high", "info"],
    });
  });

  it("applies a rule to every asset of the project that reports the variable, each on its own", async () => {
    const s = await site(2);
    const [a1, a2] = s.assetIds as [string, string];
    await createRule(t, { project_id: s.projectId });
    await sendTelemetry(t, a1, 0, { pressure: 150 });
    await sendTelemetry(t, a2, 0, { pressure: 50 });
    expect((await listed(s.projectId)).map((a) => a.asset_id)).toEqual([a1]);
    await sendTelemetry(t, a2, 1, { pressure: 150 });
    await sendTelemetry(t, a1, 1, { pressure: 150 });
    expect((await listed(s.projectId)).map((a) => a.asset_id).sort()).toEqual([a1, a2].sort());
  });

  it("another project's readings never meet this project's rules", async () => {
    const s = await site();
    await createRule(t, { project_id: s.projectId });
    await sendTelemetry(t, w.foreignAssetId, 0, { pressure: 1000 });
    expect(await listed(s.projectId)).toEqual([]);
    expect(await listed(w.foreignProjectId)).toEqual([]);
  });

  it("honours delay_seconds on reading timestamps, restarting it on a dip", async () => {
    const s = await site();
    await createRule(t, { project_id: s.projectId, delay_seconds: 60 });
    await sendTelemetry(t, s.assetId, 0, { pressure: 120 });
    await sendTelemetry(t, s.assetId, 59, { pressure: 130 });
    expect(await listed(s.projectId)).toEqual([]);
    await sendTelemetry(t, s.assetId, 60, { pressure: 50 });
    await sendTelemetry(t, s.assetId, 100, { pressure: 120 });
    await sendTelemetry(t, s.assetId, 159, { pressure: 120 });
    expect(await listed(s.projectId)).toEqual([]);
    await sendTelemetry(t, s.assetId, 160, { pressure: 125 });
    const alarms = await listed(s.projectId);
    expect(alarms).toHaveLength(1);
    expect(alarms[0]).toMatchObject({ value: 125, timestamp: at(160), active: true });
  });

  it("honours the deadband: returns to normal only beyond threshold - deadband", async () => {
    const s = await site();
    await createRule(t, { project_id: s.projectId, deadband: 10 });
    await sendTelemetry(t, s.assetId, 0, { pressure: 120 });
    for (const [i, v] of [99, 95, 101, 90.5].entries())
      await sendTelemetry(t, s.assetId, i + 1, { pressure: v });
    let alarms = await listed(s.projectId);
    expect(alarms).toHaveLength(1);
    expect(alarms[0]?.active).toBe(true);
    await sendTelemetry(t, s.assetId, 10, { pressure: 90 });
    alarms = await listed(s.projectId);
    expect(alarms).toHaveLength(1);
    expect(alarms[0]).toMatchObject({ active: false, returned_at: at(10), acknowledged: false });
  });

  it("listed until BOTH returned and acknowledged: ack first, then return", async () => {
    const s = await site();
    await createRule(t, { project_id: s.projectId });
    await sendTelemetry(t, s.assetId, 0, { pressure: 150 });
    const [alarm] = await listed(s.projectId);
    if (!alarm) throw new Error("no alarm");
    const rec = recordNotices(t);
    t.clock.advance(1000);
    const acked = await ack(alarm.id, w.operador.token);
    expect(acked.status).toBe(200);
    expect(acked.body).toMatchObject({
      id: alarm.id,
      acknowledged: true,
      acknowledged_by: w.operador.id,
      acknowledged_at: expect.any(String),
      active: true,
    });
    // Acknowledged but still active: still listed.
    expect((await listed(s.projectId)).map((a) => a.id)).toEqual([alarm.id]);
    await sendTelemetry(t, s.assetId, 5, { pressure: 50 });
    rec.stop();
    expect(await listed(s.projectId)).toEqual([]);
    expect(rec.notices.map((n) => [n.event, n.alarm.id])).toEqual([
      ["acknowledged", alarm.id],
      ["cleared", alarm.id],
    ]);
  });

  it("listed until BOTH returned and acknowledged: return first, then ack", async () => {
    const s = await site();
    await createRule(t, { project_id: s.projectId });
    await sendTelemetry(t, s.assetId, 0, { pressure: 150 });
    await sendTelemetry(t, s.assetId, 1, { pressure: 50 });
    const [alarm] = await listed(s.projectId);
    expect(alarm).toMatchObject({ active: false, acknowledged: false, returned_at: at(1) });
    if (!alarm) throw new Error("no alarm");
    expect((await ack(alarm.id, w.operador.token)).status).toBe(200);
    expect(await listed(s.projectId)).toEqual([]);
  });

  it("acknowledging twice is idempotent: 200, the first acknowledgement kept, one history row", async () => {
    const s = await site();
    await createRule(t, { project_id: s.projectId });
    await sendTelemetry(t, s.assetId, 0, { pressure: 150 });
    const [alarm] = await listed(s.projectId);
    if (!alarm) throw new Error("no alarm");
    const first = await ack(alarm.id, w.operador.token);
    t.clock.advance(5000);
    const second = await ack(alarm.id, w.admin);
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    expect((await history(s.projectId)).filter((e) => e.event === "acknowledged")).toHaveLength(1);
  });

  it("a new crossing after a return is a new alarm; the history keeps every raise, return and ack", async () => {
    const s = await site();
    const ruleId = await createRule(t, { project_id: s.projectId });
    await sendTelemetry(t, s.assetId, 0, { pressure: 150 });
    await sendTelemetry(t, s.assetId, 10, { pressure: 50 });
    const [first] = await listed(s.projectId);
    if (!first) throw new Error("no alarm");
    await ack(first.id, w.operador.token);
    await sendTelemetry(t, s.assetId, 20, { pressure: 160 });
    const now = await listed(s.projectId);
    expect(now).toHaveLength(1);
    expect(now[0]?.id).not.toBe(first.id);
    const events = await history(s.projectId);
    expect(events).toHaveLength(4);
    // Reading time orders raises and returns; acknowledgement carries the operator's time.
    const byAlarm = events.filter((e) => e.alarm_id === first.id);
    expect(byAlarm.map((e) => e.event).sort()).toEqual(["acknowledged", "cleared", "raised"]);
    expect(byAlarm.find((e) => e.event === "raised")).toMatchObject({
      at: at(0),
      value: 150,
      rule_id: ruleId,
    });
    expect(byAlarm.find((e) => e.event === "cleared")).toMatchObject({ at: at(10), value: 50 });
    expect(byAlarm.find((e) => e.event === "acknowledged")).toMatchObject({
      user_id: w.operador.id,
      value: null,
    });
    expect(events.find((e) => e.alarm_id !== first.id)).toMatchObject({
      event: "raised",
      at: at(20),
      value: 160,
    });
  });

  it("history filters by from/to (inclusive) and limit, newest first", async () => {
    const s = await site();
    await createRule(t, { project_id: s.projectId });
    for (let i = 0; i < 6; i++)
      await sendTelemetry(t, s.assetId, i * 10, { pressure: i % 2 === 0 ? 150 : 50 });
    const all = await history(s.projectId);
    expect(all.map((e) => e.at)).toEqual([50, 40, 30, 20, 10, 0].map(at));
    expect(all.map((e) => e.event)).toEqual(["cleared", "raised", "cleared", "raised", "cleared", "raised"]);
    const window = await history(
      s.projectId,
      `&from=${encodeURIComponent(at(10))}&to=${encodeURIComponent(at(30))}`,
    );
    expect(window.map((e) => e.at)).toEqual([30, 20, 10].map(at));
    expect((await history(s.projectId, "&limit=2")).map((e) => e.at)).toEqual([50, 40].map(at));
    expect(await history(s.projectId, `&from=${encodeURIComponent(at(51))}`)).toEqual([]);
  });

  it("history filters by asset, severity and type, and exports the same rows as CSV", async () => {
    const s = await site(2);
    const [well = "", tank = ""] = s.assetIds;
    await createRule(t, { project_id: s.projectId, severity: "warning" });
    await createRule(t, {
      project_id: s.projectId,
      name: "Low level",
      variable_alias: "level",
      condition: "lt",
      threshold: 10,
      severity: "critical",
    });
    await sendTelemetry(t, well, 0, { pressure: 150 });
    await sendTelemetry(t, tank, 10, { pressure: 150 });
    await sendTelemetry(t, tank, 20, { level: 5 });
    const rows = (q: string) =>
      history(s.projectId, q).then((h) => h.map((e) => [e.at, e.asset_id, e.variable]));
    expect(await rows(`&asset_id=${tank}`)).toEqual([
      [at(20), tank, "level"],
      [at(10), tank, "pressure"],
    ]);
    expect(await rows("&severity=critical")).toEqual([[at(20), tank, "level"]]);
    expect(await rows("&alarm_type=high")).toEqual([
      [at(10), tank, "pressure"],
      [at(0), well, "pressure"],
    ]);
    expect(await rows(`&asset_id=${well}&alarm_type=low`)).toEqual([]);

    const csv = await t.request(`/api/alarms/history?project_id=${s.projectId}&severity=warning&format=csv`, {
      token: w.operador.token,
    });
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(csv.headers.get("content-disposition")).toBe(
      `attachment; filename="alarm-history-${s.projectId}.csv"`,
    );
    const lines = csv.text.split("\r\n");
    expect(lines[0]).toBe("at,event,severity,alarm_type,asset_id,variable,value,message,alarm_id,user_id");
    expect(lines.slice(1, -1).map((l) => l.split(",").slice(0, 7))).toEqual([
      [at(10), "raised", "warning", "high", tank, "pressure", "150"],
      [at(0), "raised", "warning", "high", well, "pressure", "150"],
    ]);
    expect(lines.at(-1)).toBe("");
    const negotiated = await t.request(`/api/alarms/history?project_id=${s.projectId}`, {
      token: w.operador.token,
      headers: { accept: "text/csv" },
    });
    expect(negotiated.text.split("\r\n")).toHaveLength(5);
  });

  it("disabling a rule (toggle) returns its active alarms to normal and raises nothing more; enabling resumes", async () => {
    const s = await site();
    const ruleId = await createRule(t, { project_id: s.projectId });
    await sendTelemetry(t, s.assetId, 0, { pressure: 150 });
    const [alarm] = await listed(s.projectId);
    const rec = recordNotices(t);
    const off = await t.request(`/api/alert-rules/${ruleId}/toggle`, {
      method: "PATCH",
      token: w.supervisor.token,
    });
    expect(off.status).toBe(200);
    expect(rec.notices.map((n) => [n.event, n.alarm.id, n.alarm.active])).toEqual([
      ["cleared", alarm?.id, false],
    ]);
    const afterOff = await listed(s.projectId);
    expect(afterOff).toHaveLength(1);
    expect(afterOff[0]).toMatchObject({ id: alarm?.id, active: false, acknowledged: false });
    expect((await history(s.projectId))[0]).toMatchObject({
      event: "cleared",
      user_id: w.supervisor.id,
      value: null,
    });
    for (let i = 1; i < 5; i++) await sendTelemetry(t, s.assetId, i, { pressure: i % 2 ? 50 : 200 });
    expect(rec.notices).toHaveLength(1);
    await t.request(`/api/alert-rules/${ruleId}/toggle`, { method: "PATCH", token: w.supervisor.token });
    await sendTelemetry(t, s.assetId, 10, { pressure: 180 });
    rec.stop();
    const afterOn = await listed(s.projectId);
    expect(afterOn.map((a) => [a.value, a.active])).toEqual([
      [180, true],
      [150, false],
    ]);
  });

  it("PUT with is_enabled false clears too; a PUT that only renames keeps the active alarm", async () => {
    const s = await site();
    const ruleId = await createRule(t, { project_id: s.projectId });
    await sendTelemetry(t, s.assetId, 0, { pressure: 150 });
    const body = {
      project_id: s.projectId,
      name: "Renamed",
      variable_alias: "pressure",
      condition: "gt",
      threshold: 100,
      severity: "warning",
    };
    const put = (extra: object) =>
      t.request(`/api/alert-rules/${ruleId}`, {
        method: "PUT",
        token: w.supervisor.token,
        body: { ...body, ...extra },
      });
    expect((await put({})).status).toBe(200);
    await sendTelemetry(t, s.assetId, 1, { pressure: 160 });
    let alarms = await listed(s.projectId);
    expect(alarms.map((a) => a.active)).toEqual([true]);
    expect((await put({ is_enabled: false })).status).toBe(200);
    alarms = await listed(s.projectId);
    expect(alarms.map((a) => a.active)).toEqual([false]);
    await sendTelemetry(t, s.assetId, 2, { pressure: 170 });
    expect(await listed(s.projectId)).toHaveLength(1);
  });

  it("redefining the threshold returns the alarm and re-evaluates under the new definition", async () => {
    const s = await site();
    const ruleId = await createRule(t, { project_id: s.projectId, threshold: 100 });
    await sendTelemetry(t, s.assetId, 0, { pressure: 150 });
    const res = await t.request(`/api/alert-rules/${ruleId}`, {
      method: "PUT",
      token: w.supervisor.token,
      body: {
        project_id: s.projectId,
        name: "x",
        variable_alias: "pressure",
        condition: "gt",
        threshold: 140,
        severity: "critical",
      },
    });
    expect(res.status).toBe(200);
    await sendTelemetry(t, s.assetId, 1, { pressure: 150 });
    const alarms = await listed(s.projectId);
    expect(alarms.map((a) => [a.alarm_type, a.active])).toEqual([
      ["critical_high", true],
      ["high", false],
    ]);
  });

  it("deleting a rule returns its alarms to normal and keeps them and their history (rule_id null)", async () => {
    const s = await site();
    const ruleId = await createRule(t, { project_id: s.projectId });
    await sendTelemetry(t, s.assetId, 0, { pressure: 150 });
    const [alarm] = await listed(s.projectId);
    const rec = recordNotices(t);
    expect(
      (await t.request(`/api/alert-rules/${ruleId}`, { method: "DELETE", token: w.supervisor.token })).status,
    ).toBe(204);
    rec.stop();
    expect(rec.notices.map((n) => [n.event, n.alarm.rule_id, n.alarm.active])).toEqual([
      ["cleared", null, false],
    ]);
    const alarms = await listed(s.projectId);
    expect(alarms).toHaveLength(1);
    expect(alarms[0]).toMatchObject({ id: alarm?.id, rule_id: null, active: false, acknowledged: false });
    expect((await history(s.projectId)).map((e) => e.event)).toEqual(["cleared", "raised"]);
    await sendTelemetry(t, s.assetId, 1, { pressure: 500 });
    expect(await listed(s.projectId)).toHaveLength(1);
    if (alarm) expect((await ack(alarm.id)).status).toBe(200);
    expect(await listed(s.projectId)).toEqual([]);
    expect((await history(s.projectId)).map((e) => e.event)).toEqual(["acknowledged", "cleared", "raised"]);
  });

  it("a failing alarm listener neither breaks the telemetry path nor loses the alarm", async () => {
    const s = await site();
    await createRule(t, { project_id: s.projectId });
    const boom = () => {
      throw new Error("listener bug");
    };
    t.server.context.events.on("alarm", boom);
    try {
      // sendTelemetry throws unless ingest answers 201.
      await sendTelemetry(t, s.assetId, 0, { pressure: 150 });
    } finally {
      t.server.context.events.off("alarm", boom);
    }
    expect((await listed(s.projectId)).map((a) => a.value)).toEqual([150]);
  });

  it("a late reading (older than the last evaluated) does not make an alarm flap", async () => {
    const s = await site();
    await createRule(t, { project_id: s.projectId });
    await sendTelemetry(t, s.assetId, 100, { pressure: 150 });
    await sendTelemetry(t, s.assetId, 50, { pressure: 10 });
    await sendTelemetry(t, s.assetId, 101, { pressure: 150 });
    expect((await history(s.projectId)).map((e) => e.event)).toEqual(["raised"]);
  });
});
