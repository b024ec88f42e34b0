import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRule, recordNotices, sendTelemetry } from "../../testing/fixtures/alarm-fixtures.ts";
import { TestServer } from "../../testing/harness.ts";
import { tableProbe } from "../../testing/table-probe.ts";
import type { AlarmDto } from "./alarm-dto.ts";

describe("alarm engine: state survives a restart", () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await TestServer.start({ COMM_LOSS_SECONDS: "300" });
  });
  afterAll(async () => t.stop());

  it("does not raise again an active alarm, returns it later, and keeps comm_loss single", async () => {
    const token = (await t.admin()).token;
    const projectId = await t.project();
    const [hot, quiet, old] = [await t.asset(projectId), await t.asset(projectId), await t.asset(projectId)];
    await createRule(t, { project_id: projectId });
    await sendTelemetry(t, hot, 0, { pressure: 150 });
    await sendTelemetry(t, quiet, 0, { flow: 1 });
    t.clock.advance(301_000);
    await t.server.alarms.tick();
    // `old` reported an hour before the restart, as only telemetry_series knows.
    const lastTs = t.clock.now().getTime() - 3_600_000;
    await tableProbe(t.server).run(
      "INSERT INTO telemetry_series (project_id, asset_id, variable, last_ts, last_value) VALUES (?, ?, 'flow', ?, 1)",
      [projectId, old, lastTs],
    );

    const list = async () =>
      (await t.request<AlarmDto[]>(`/api/alarms?project_id=${projectId}`, { token })).body.map((a) => ({
        id: a.id,
        asset: a.asset_id === hot ? "hot" : a.asset_id === quiet ? "quiet" : "old",
        type: a.alarm_type,
        active: a.active,
      }));
    const before = await list();
    expect(before.map(({ asset, type, active }) => [asset, type, active]).sort()).toEqual([
      ["hot", "comm_loss", true],
      ["hot", "high", true],
      ["quiet", "comm_loss", true],
    ]);

    await t.server.stop();
    await t.server.start();
    const rec = recordNotices(t);

    // Still in alarm after the restart: nothing new. The silence check adds nothing either.
    await sendTelemetry(t, hot, 10, { pressure: 160 });
    await t.server.alarms.tick();
    expect(rec.notices.map((n) => [n.event, n.alarm.alarm_type])).toEqual([["cleared", "comm_loss"]]);
    // Back to normal: the alarm raised before the restart returns.
    await sendTelemetry(t, hot, 11, { pressure: 50 });
    await sendTelemetry(t, quiet, 11, { flow: 1 });
    const after = await list();
    const high = before.find((a) => a.type === "high");
    expect(after.find((a) => a.id === high?.id)?.active).toBe(false);
    expect(after.filter((a) => a.type === "high")).toHaveLength(1);
    expect(after.filter((a) => a.type === "comm_loss").map((a) => a.active)).toEqual([false, false]);

    // An asset known only from telemetry_series: silence counts from the restart, not from its last report.
    expect(after.some((a) => a.asset === "old")).toBe(false);
    t.clock.advance(300_000);
    await t.server.alarms.tick();
    rec.stop();
    const raised = rec.notices.filter((n) => n.event === "raised").map((n) => n.alarm);
    expect(raised.map((a) => a.asset_id)).toContain(old);
    const oldAlarm = raised.find((a) => a.asset_id === old);
    expect(oldAlarm?.value).toBeGreaterThanOrEqual(3_900);
  });
});
