import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createAsset,
  createDevice,
  createProject,
  createVariable,
  expectError,
  insertAlarm,
  seedSeries,
  setClock,
  setLastReading,
} from "../../testing/fixtures/report-fixtures.ts";
import { TestServer } from "../../testing/harness.ts";

type Summary = {
  active_assets: number;
  total_alarms: number;
  recent_telemetry: {
    asset_id: string;
    variable: string;
    value: number;
    unit: string | null;
    timestamp: string;
  }[];
  compliance_status: string;
  compliance: { project_id: string; report_date: string; status: string; gap_count: number | null }[];
};

const at = (s: string) => Date.parse(s);
const NOW = at("2025-03-11T15:00:00Z"); // 10:00 on the 11th in Bogota
const MIN = 60_000;

describe("dashboard summary over the caller's projects", () => {
  let t: TestServer;
  let root: string;
  let p1: string;
  let p2: string;
  let p3: string;
  let a1: string;
  let operador: string;
  let reader: string;

  async function summary(token: string): Promise<Summary> {
    const res = await t.request<Summary>("/api/dashboard/summary", { token });
    expect(res.status).toBe(200);
    return res.body;
  }

  async function generate(projectId: string): Promise<void> {
    const res = await t.request("/api/anh/reports/generate", {
      token: root,
      body: { project_id: projectId, report_date: "2025-03-10" },
    });
    expect(res.status).toBe(201);
  }

  beforeAll(async () => {
    t = await TestServer.start();
    setClock(t, at("2025-03-09T12:00:00Z"));
    await t.admin();
    p1 = await createProject(t, { name: "A field" });
    p2 = await createProject(t, { name: "B field" });
    p3 = await createProject(t, { name: "C field" });
    a1 = await createAsset(t, p1, "a1");
    const a2 = await createAsset(t, p1, "a2");
    const b1 = await createAsset(t, p2, "b1");
    const c1 = await createAsset(t, p3, "c1");
    // p3 expects a tag it never received: its report will list a whole-day gap.
    await createVariable(t, await createDevice(t, c1), "level", 60_000, "ft");
    const users = [
      await t.admin(),
      await t.userWithRole("operador", [p1]),
      await t.userWithRole("anh_reader"),
    ];
    // Access tokens last 15 minutes of clock time: log in again once the clock has moved.
    setClock(t, NOW);
    const [r, o, a] = await Promise.all(
      users.map(async (u) => (await t.login(u.email, u.password)).body.token),
    );
    root = r ?? "";
    operador = o ?? "";
    reader = a ?? "";

    await setLastReading(t, await seedSeries(t, p1, a1, "pressure", "psi"), NOW - 5 * MIN, 101.5);
    await setLastReading(t, await seedSeries(t, p1, a2, "pressure", "psi"), NOW - 20 * MIN, 99);
    await setLastReading(t, await seedSeries(t, p2, b1, "flow", "bbl/d"), NOW - MIN, 350);
    for (let i = 0; i < 22; i++)
      await setLastReading(t, await seedSeries(t, p2, b1, `tag${i}`), NOW - (30 + i) * MIN, i);
    await seedSeries(t, p1, a1, "never_reported");

    const alarm = (projectId: string, active: boolean, acknowledged: boolean) =>
      insertAlarm(t, {
        projectId,
        assetId: null,
        variable: "pressure",
        value: 1,
        alarmType: "high",
        at: NOW - 60 * MIN,
        active,
        acknowledged,
      });
    await alarm(p1, true, false);
    await alarm(p1, true, true);
    await alarm(p1, false, false);
    await alarm(p1, false, true); // returned to normal and acknowledged: no longer listed
    await alarm(p2, true, false);
  });
  afterAll(async () => t.stop());

  it("counts active assets, open alarms and the 20 newest readings across every project", async () => {
    const s = await summary(root);
    expect(s.active_assets).toBe(2);
    expect(s.total_alarms).toBe(4);
    expect(s.recent_telemetry).toHaveLength(20);
    expect(s.recent_telemetry[0]).toEqual({
      project_id: p2,
      asset_id: expect.any(String),
      asset_name: "b1",
      variable: "flow",
      value: 350,
      unit: "bbl/d",
      timestamp: new Date(NOW - MIN).toISOString(),
    });
    expect(s.recent_telemetry[1]).toMatchObject({
      asset_id: a1,
      variable: "pressure",
      value: 101.5,
      unit: "psi",
    });
    const times = s.recent_telemetry.map((r) => Date.parse(r.timestamp));
    expect([...times].sort((x, y) => y - x)).toEqual(times);
  });

  it("an operador sees only their project", async () => {
    const s = await summary(operador);
    expect(s.active_assets).toBe(1);
    expect(s.total_alarms).toBe(3);
    expect(s.recent_telemetry.map((r) => r.variable)).toEqual(["pressure", "pressure"]);
    expect(s.compliance.map((c) => c.project_id)).toEqual([p1]);
  });

  it("an anh_reader gets no telemetry: recent_telemetry is empty even for an assigned project", async () => {
    const assigned = await t.userWithRole("anh_reader", [p1]);
    const s = await summary(assigned.token);
    expect(s.recent_telemetry).toEqual([]);
    expect(s.compliance.map((c) => c.project_id)).toEqual([p1]);
    expect((await summary(operador)).recent_telemetry.length).toBeGreaterThan(0);
  });

  it("compliance: missing → non_compliant, gaps → attention, clean → compliant", async () => {
    let s = await summary(root);
    expect(s.compliance_status).toBe("non_compliant");
    expect(s.compliance.map((c) => [c.project_id, c.report_date, c.status])).toEqual([
      [p1, "2025-03-10", "non_compliant"],
      [p2, "2025-03-10", "non_compliant"],
      [p3, "2025-03-10", "non_compliant"],
    ]);

    await generate(p1);
    expect((await summary(operador)).compliance_status).toBe("compliant");

    await generate(p3);
    s = await summary(root);
    expect(s.compliance.find((c) => c.project_id === p3)).toMatchObject({
      status: "attention",
      gap_count: 1,
    });
    expect(s.compliance_status).toBe("non_compliant");

    await generate(p2);
    expect((await summary(root)).compliance_status).toBe("attention");
  });

  it("a caller with no projects gets zeros and compliant; 401 without a token", async () => {
    expect(await summary(reader)).toEqual({
      active_assets: 0,
      total_alarms: 0,
      recent_telemetry: [],
      compliance_status: "compliant",
      compliance: [],
    });
    expectError(await t.request("/api/dashboard/summary"), 401, "Unauthorized");
    expectError(await t.request("/api/dashboard/summary", { token: "x.y.z" }), 401, "Unauthorized");
  });
});
