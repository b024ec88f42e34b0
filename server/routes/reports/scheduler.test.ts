import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AnhReportContent } from "../../services/reports/content-schema.ts";
import { createAsset, createProject, expectError, setClock } from "../../testing/fixtures/report-fixtures.ts";
import { TestServer } from "../../testing/harness.ts";

type Report = {
  id: string;
  project_id: string;
  report_date: string;
  status: string;
  hash_sha384: string | null;
  version: number;
  content?: AnhReportContent | null;
};

const at = (s: string) => Date.parse(s);

describe("scheduler: yesterday's report per project time zone, driven by a fake clock", () => {
  let t: TestServer;
  let bogota: string;
  let tokyo: string;
  let well: string;

  /** Access tokens last 15 minutes of clock time; log in again after moving the clock. */
  async function token(): Promise<string> {
    const admin = await t.admin();
    const res = await t.login(admin.email, admin.password);
    return res.body.token;
  }

  async function reportsOf(projectId: string): Promise<Report[]> {
    const res = await t.request<Report[]>(`/api/anh/reports?project_id=${projectId}`, {
      token: await token(),
    });
    expect(res.status).toBe(200);
    return res.body;
  }

  beforeAll(async () => {
    t = await TestServer.start();
    setClock(t, at("2025-03-09T12:00:00Z"));
    bogota = await createProject(t, { name: "Bogota field" });
    tokyo = await createProject(t, { name: "Tokyo field", timezone: "Asia/Tokyo" });
    well = await createAsset(t, bogota, "Pozo-B", "well");
  });
  afterAll(async () => t.stop());

  it("ingest: a reading at 04:59Z and one at 05:00Z, through POST /api/telemetry/batch", async () => {
    setClock(t, at("2025-03-11T05:01:00Z"));
    const res = await t.request<{ accepted: number }>("/api/telemetry/batch", {
      token: await token(),
      body: {
        items: [
          // 23:59 on the 10th in Bogota.
          {
            asset_id: well,
            timestamp: "2025-03-11T04:59:00Z",
            readings: [{ variable: "pressure", value: 42 }],
          },
          // 00:00 on the 11th: the next day.
          {
            asset_id: well,
            timestamp: "2025-03-11T05:00:00Z",
            readings: [{ variable: "pressure", value: 99 }],
          },
        ],
      },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.accepted).toBe(2);
  });

  it("at 00:02 Bogota: Bogota's day is pending; Tokyo's (closed 14 h ago) is generated", async () => {
    setClock(t, at("2025-03-11T05:02:00Z"));
    const result = await t.server.scheduler.tick();
    expect(result.anh_daily_reports).toMatchObject({ failed: 0 });

    const [pending] = await reportsOf(bogota);
    expect(pending).toMatchObject({
      report_date: "2025-03-10",
      status: "pending",
      hash_sha384: null,
      version: 1,
    });
    const tk = await reportsOf(tokyo);
    expect(tk.map((r) => [r.report_date, r.status])).toEqual([["2025-03-10", "generated"]]);

    const admin = await token();
    const id = pending?.id ?? "";
    expectError(await t.request(`/api/anh/reports/${id}/download`, { token: admin }), 409, "Conflict");
    expectError(await t.request(`/api/anh/reports/${id}/hash`, { token: admin }), 409, "Conflict");
    expectError(
      await t.request(`/api/anh/reports/${id}/submit`, { method: "POST", token: admin }),
      409,
      "Conflict",
    );
    const got = await t.request<Report>(`/api/anh/reports/${id}`, { token: admin });
    expect(got.body.content).toBeNull();

    const dashboard = await t.request<{
      compliance_status: string;
      compliance: { project_id: string; status: string }[];
    }>("/api/dashboard/summary", { token: admin });
    expect(dashboard.body.compliance.find((c) => c.project_id === bogota)?.status).toBe("non_compliant");
    expect(dashboard.body.compliance_status).toBe("non_compliant");
  });

  it("five minutes after the close it generates the pending report, in place", async () => {
    const [pending] = await reportsOf(bogota);
    setClock(t, at("2025-03-11T05:06:00Z"));
    await t.server.scheduler.tick();
    const reports = await reportsOf(bogota);
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatchObject({ id: pending?.id, status: "generated", version: 1 });
    expect(reports[0]?.hash_sha384).toMatch(/^[0-9a-f]{96}$/);

    const full = await t.request<Report>(`/api/anh/reports/${pending?.id}`, { token: await token() });
    const c = full.body.content;
    expect(c?.report).toMatchObject({
      report_date: "2025-03-10",
      period_start: "2025-03-10T05:00:00.000Z",
      period_end: "2025-03-11T05:00:00.000Z",
      trigger: "scheduler",
      requested_by: null,
    });
    // Only the 04:55Z bucket belongs to the 10th.
    expect(c?.telemetry.assets[0]?.variables[0]).toMatchObject({
      variable: "pressure",
      count: 1,
      min: 42,
      max: 42,
    });
    expect(c?.integrity.previous_report_sha384).toBeNull();
  });

  it("is idempotent and skips projects created after the day ended", async () => {
    const late = await createProject(t, { name: "created today" }, await token());
    const before = (await reportsOf(bogota)).length + (await reportsOf(tokyo)).length;
    const result = await t.server.scheduler.tick();
    expect(result.anh_daily_reports).toEqual({ pending: 0, generated: 0, failed: 0 });
    expect((await reportsOf(bogota)).length + (await reportsOf(tokyo)).length).toBe(before);
    expect(await reportsOf(late)).toEqual([]);
  });

  it("the next midnight in Tokyo brings Tokyo's next day, chained to its first", async () => {
    const [tokyoFirst] = await reportsOf(tokyo);
    setClock(t, at("2025-03-11T15:10:00Z")); // 00:10 on the 12th in Tokyo
    await t.server.scheduler.tick();
    const tk = await reportsOf(tokyo);
    expect(tk.map((r) => r.report_date)).toEqual(["2025-03-11", "2025-03-10"]);
    const full = await t.request<Report>(`/api/anh/reports/${tk[0]?.id}`, { token: await token() });
    expect(full.body.content?.integrity.previous_report_sha384).toBe(tokyoFirst?.hash_sha384);
  });

  it("start() arms the timer and stop() clears it", async () => {
    const scheduler = t.server.scheduler;
    await scheduler.stop();
    await scheduler.stop();
    scheduler.start();
    await scheduler.stop();
  });
});
