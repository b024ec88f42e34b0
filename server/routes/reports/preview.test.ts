import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AnhReportContent } from "../../services/reports/content-schema.ts";
import {
  BUCKET_MS,
  bucketsBetween,
  createAsset,
  createDevice,
  createProject,
  createVariable,
  expectError,
  seedBuckets,
  seedSeries,
  setClock,
} from "../../testing/fixtures/report-fixtures.ts";
import { TestServer } from "../../testing/harness.ts";
import { tableProbe } from "../../testing/table-probe.ts";

type Preview = {
  provisional: boolean;
  project_id: string;
  report_date: string;
  period_start: string;
  period_end: string;
  as_of: string;
  content: AnhReportContent;
};

const TODAY = "2025-03-10";
const S = Date.parse("2025-03-10T05:00:00Z"); // 00:00 in Bogota
const NOW = S + 12 * 3_600_000; // noon in Bogota
const DAY_MS = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

describe("GET /api/anh/reports/preview", () => {
  let t: TestServer;
  let root: string;
  let project: string;
  let reader: string;

  /** Rows that a preview must leave alone. */
  const stored = async () => ({
    reports: await tableProbe(t.server).count("anh_reports"),
    audit: await tableProbe(t.server).count("audit_log"),
  });
  const preview = (query: string, token = root) =>
    t.request<Preview & { error: string; message: string }>(`/api/anh/reports/preview${query}`, { token });

  beforeAll(async () => {
    t = await TestServer.start();
    setClock(t, NOW);
    root = (await t.admin()).token;
    project = await createProject(t);
    const well = await createAsset(t, project, "Pozo-1");
    await createVariable(t, await createDevice(t, well), "pressure", 60_000, "psi");
    const series = await seedSeries(t, project, well, "pressure", "psi");
    // Yesterday: every bucket but one hour; today: every bucket up to now, 5 samples each.
    await seedBuckets(
      t,
      series,
      bucketsBetween(
        S - DAY_MS,
        NOW,
        () => ({ count: 5, sum: 50, min: 9, max: 11 }),
        (b) => b >= S - DAY_MS + 3_600_000 && b < S - DAY_MS + 2 * 3_600_000,
      ),
    );
    reader = (await t.userWithRole("anh_reader", [project])).token;
  });
  afterAll(async () => t.stop());

  it("today: the content the report would have now, provisional, without a hash; nothing stored", async () => {
    const before = await stored();
    const res = await preview(`?project_id=${project}&date=${TODAY}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      provisional: true,
      project_id: project,
      report_date: TODAY,
      period_start: iso(S),
      period_end: iso(S + DAY_MS),
    });
    expect(Math.abs(Date.parse(res.body.as_of) - NOW)).toBeLessThan(60_000);
    expect(Object.keys(res.body)).not.toContain("hash_sha384");
    const variable = res.body.content.telemetry.assets[0]?.variables[0];
    const samples = ((NOW - S) / BUCKET_MS) * 5;
    // Completeness counts the whole day, as the report does: the rest of the day is still missing.
    expect(variable).toMatchObject({ variable: "pressure", count: samples, expected_samples: 1440 });
    expect(variable?.completeness_pct).toBe(Math.round((samples / 1440) * 10_000) / 100);
    expect(res.body.content.data_quality.gaps).toEqual([
      expect.objectContaining({ start: iso(NOW), end: iso(S + DAY_MS) }),
    ]);
    expect(await stored()).toEqual(before);
    // Without a date: today in the project's zone.
    const byDefault = await preview(`?project_id=${project}`);
    expect(byDefault.body.report_date).toBe(TODAY);
    expect(byDefault.body.content.telemetry).toEqual(res.body.content.telemetry);
  });

  it("a closed day: exactly what generating it now stores, apart from the report's id and instant", async () => {
    const res = await preview(`?project_id=${project}&date=2025-03-09`);
    expect(res.status).toBe(200);
    expect(res.body.provisional).toBe(true);
    expect(res.body.content.data_quality.gap_count).toBe(1);
    const generated = await t.request<{ id: string }>("/api/anh/reports/generate", {
      token: root,
      body: { project_id: project, report_date: "2025-03-09" },
    });
    expect(generated.status).toBe(201);
    const report = await t.request<{ content: AnhReportContent }>(`/api/anh/reports/${generated.body.id}`, {
      token: root,
    });
    const same = (c: AnhReportContent) => ({ ...c, report: { ...c.report, id: "-", generated_at: "-" } });
    expect(same(res.body.content)).toEqual(same(report.body.content));
    // A preview of a day with a report shows the next version it would get.
    const again = await preview(`?project_id=${project}&date=2025-03-09`);
    expect(again.body.content.report).toMatchObject({ version: 2, supersedes: generated.body.id });
  });

  it("anh_reader may preview their project (reports:read)", async () => {
    expect((await preview(`?project_id=${project}&date=${TODAY}`, reader)).status).toBe(200);
  });

  it("400 for a day that has not begun, a date that is not a calendar date, a bad project_id", async () => {
    expectError(await preview(`?project_id=${project}&date=2025-03-11`), 400, "ValidationFailed", "date");
    expectError(await preview(`?project_id=${project}&date=2025-02-30`), 400, "ValidationFailed", "date");
    expectError(await preview(`?project_id=${project}&date=10-03-2025`), 400, "ValidationFailed", "date");
    expectError(await preview("?date=2025-03-10"), 400, "ValidationFailed", "project_id");
    expectError(await preview("?project_id=p-1"), 400, "ValidationFailed", "project_id");
  });

  it("401 without a token; 404 for an unknown project and one outside the caller's", async () => {
    expectError(await t.request(`/api/anh/reports/preview?project_id=${project}`), 401, "Unauthorized");
    expectError(await preview(`?project_id=${randomUUID()}`), 404, "NotFound");
    const outsider = (await t.userWithRole("operador", [await createProject(t)])).token;
    expectError(await preview(`?project_id=${project}`, outsider), 404, "NotFound");
  });
});
