import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canonicalize } from "../../../shared/jcs.ts";
import { type AnhReportContent, anhReportContentSchema } from "../../services/reports/content-schema.ts";
import {
  BUCKET_MS,
  bucketsBetween,
  createAsset,
  createDevice,
  createProject,
  createVariable,
  insertAlarm,
  postRecord,
  seedBuckets,
  seedRawPoint,
  seedSeries,
} from "../../testing/fixtures/report-fixtures.ts";
import { TestServer } from "../../testing/harness.ts";

type Report = {
  id: string;
  project_id: string;
  report_date: string;
  period_start: string;
  period_end: string;
  status: string;
  hash_sha384: string | null;
  version: number;
  supersedes: string | null;
  submitted_at: string | null;
  submitted_by: string | null;
  content?: AnhReportContent | null;
};

const DAY = "2025-03-10";
const S = Date.parse("2025-03-10T05:00:00Z"); // 00:00 in Bogota
const E = S + 86_400_000;
const H = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();

/** The raw bytes of a download (never decoded and re-encoded). */
async function download(t: TestServer, id: string, token: string) {
  const res = await fetch(`${t.baseUrl}/api/anh/reports/${id}/download`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return { res, bytes: Buffer.from(await res.arrayBuffer()) };
}

/** `sha384sum` from coreutils, run on a temporary file holding `bytes`. */
function sha384sum(bytes: Buffer): string {
  const dir = mkdtempSync(join(tmpdir(), "anh-hash-"));
  try {
    const file = join(dir, "report.json");
    writeFileSync(file, bytes);
    const out = execFileSync("sha384sum", [file], { encoding: "utf8" });
    return out.split(/\s+/)[0] ?? "";
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("ANH 0651 daily report: generation, content, hash, chain, versions", () => {
  let t: TestServer;
  let admin: string;
  let projectId: string;
  let well: string;
  let meter: string;
  let first: Report;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    t = await TestServer.start();
    admin = (await t.admin()).token;
    projectId = await createProject(t, { name: "Campo Rubiales Norte", location: "Meta, Colombia" });
    well = await createAsset(t, projectId, "Pozo-01", "well");
    meter = await createAsset(t, projectId, "Medidor-01", "meter");
    await createAsset(t, projectId, "Tanque-01", "tank");

    const plc = await createDevice(t, well);
    await createVariable(t, plc, "pressure", 10_000, "psi");
    await createVariable(t, plc, "temperature", 60_000, "degF");
    const spare = await createDevice(t, well, false);
    await createVariable(t, spare, "flow", 1_000, "bbl/d");

    // pressure: every bucket but a 30-minute hole at 05:00–05:30 local; one bucket either side of
    // the day that must not count. Raw rows that contradict the rollups prove they are not read.
    const pressure = await seedSeries(t, projectId, well, "pressure", "psi");
    const hole = (b: number) => b >= S + 5 * H && b < S + 5 * H + 30 * 60_000;
    await seedBuckets(t, pressure, [
      { bucket: S - BUCKET_MS, count: 30, sum: -30_000, min: -1000, max: -1000 },
      ...bucketsBetween(S, E, (_, i) => ({ count: 30, sum: 30 * (i + 5), min: i, max: i + 10 }), hole),
      { bucket: E, count: 30, sum: 30e6, min: 1e6, max: 1e6 },
    ]);
    await seedRawPoint(t, pressure, S + 1000, 1e9);

    const temperature = await seedSeries(t, projectId, well, "temperature", "degF");
    await seedBuckets(
      t,
      temperature,
      bucketsBetween(S, E, () => ({ count: 5, sum: 400, min: 79, max: 81 })),
    );

    // vibration: no variable defines it; only the hole between its first and last bucket counts.
    const vibration = await seedSeries(t, projectId, well, "vibration", "mm/s");
    await seedBuckets(t, vibration, [
      { bucket: S + H, count: 1, sum: 2, min: 2, max: 2 },
      { bucket: S + H + BUCKET_MS, count: 1, sum: 4, min: 4, max: 4 },
      { bucket: S + 2 * H, count: 1, sum: 6, min: 6, max: 6 },
    ]);

    const m = (movement_type: string, volume_bbls: number, at: number, extra = {}) =>
      postRecord(t, "movements", {
        project_id: projectId,
        movement_type,
        volume_bbls,
        timestamp: iso(at),
        ...extra,
      });
    ids.m1 = await m("production", 100.5, S + H);
    ids.m2 = await m("production", 200.25, E - 1000); // 23:59:59 local: still this day
    ids.m3 = await m("transfer", 50, S + 2 * H);
    ids.m4 = await m("production", 999, S + 3 * H);
    ids.m5 = await m("production", 300, S + 3 * H, { supersedes: ids.m4, correction_reason: "typo" });
    ids.m6 = await m("flare", 10, S - 60_000); // 04:59Z: the previous Bogota day

    const dt = (reason: string, started: number, ended: number | null) =>
      postRecord(t, "downtime", {
        project_id: projectId,
        reason,
        started_at: iso(started),
        ended_at: ended === null ? null : iso(ended),
      });
    ids.d1 = await dt("pump failure", S - 2 * H, S + 2 * H);
    ids.d2 = await dt("power outage", E - 4 * H, null);
    ids.d3 = await dt("before the day", S - 5 * H, S - 3 * H);

    ids.w1 = await postRecord(t, "well-tests", {
      project_id: projectId,
      asset_id: well,
      test_date: iso(S + 6 * H),
      oil_rate_bopd: 512.5,
      water_cut_pct: 12.5,
      gor_scf_bbl: 350,
    });
    ids.l1 = await postRecord(t, "lab-results", {
      project_id: projectId,
      sample_date: iso(S + 7 * H),
      api_gravity: 18.4,
      bsw_pct: 0.8,
      viscosity_cp: 250,
    });
    const reading = (value: number, at: number) =>
      postRecord(t, "meters/readings", {
        project_id: projectId,
        meter_id: meter,
        reading_value: value,
        read_at: iso(at),
        unit: "bbl",
      });
    ids.r0 = await reading(1000, S - H);
    ids.r1 = await reading(1100, S + 7 * H);
    ids.r2 = await reading(1250.5, E - 30 * 60_000);

    ids.a1 = await insertAlarm(t, {
      projectId,
      assetId: well,
      variable: "pressure",
      value: 350,
      alarmType: "high",
      at: S + 4 * H,
    });
    await insertAlarm(t, {
      projectId,
      assetId: well,
      variable: "pressure",
      value: 1,
      alarmType: "low",
      at: S - 60_000,
    });
    ids.a3 = await insertAlarm(t, {
      projectId,
      assetId: well,
      variable: "pressure",
      value: 0,
      alarmType: "comm_loss",
      at: E - 1,
    });

    const res = await t.request<Report>("/api/anh/reports/generate", {
      token: admin,
      body: { project_id: projectId, report_date: DAY },
    });
    expect(res.status, res.text).toBe(201);
    first = res.body;
  });
  afterAll(async () => t.stop());

  it("returns the ANHReport with the day's window in the project's zone", () => {
    expect(first).toMatchObject({
      project_id: projectId,
      report_date: DAY,
      period_start: "2025-03-10T05:00:00.000Z",
      period_end: "2025-03-11T05:00:00.000Z",
      status: "generated",
      version: 1,
      supersedes: null,
      submitted_at: null,
      submitted_by: null,
    });
    expect(first.hash_sha384).toMatch(/^[0-9a-f]{96}$/);
  });

  it("content: identity, window, records, telemetry and data quality, field by field", async () => {
    const res = await t.request<Report>(`/api/anh/reports/${first.id}`, { token: admin });
    expect(res.status).toBe(200);
    const c = anhReportContentSchema.parse(res.body.content);
    expect(c.format).toBe("caudal/anh-0651-daily");
    expect(c.report).toMatchObject({
      id: first.id,
      version: 1,
      supersedes: null,
      report_date: DAY,
      timezone: "America/Bogota",
      period_start: "2025-03-10T05:00:00.000Z",
      period_end: "2025-03-11T05:00:00.000Z",
      utc_offset_start: "-05:00",
      utc_offset_end: "-05:00",
      duration_hours: 24,
      trigger: "on_demand",
    });
    expect(c.project).toEqual({
      id: projectId,
      name: "Campo Rubiales Norte",
      description: null,
      location: "Meta, Colombia",
    });
    expect(c.field.assets.map((a) => a.name)).toEqual(["Medidor-01", "Pozo-01", "Tanque-01"]);

    // Movements: the superseded 999 and the previous day's flare are out.
    expect(c.movements.count).toBe(4);
    expect(c.movements.totals_bbls).toEqual({
      production: 600.75,
      transfer: 50,
      injection: 0,
      flare: 0,
      loss: 0,
    });
    expect(c.movements.entries.map((e) => e.id)).toEqual([ids.m1, ids.m3, ids.m5, ids.m2]);
    expect(c.movements.entries[2]).toMatchObject({
      supersedes: ids.m4,
      correction_reason: "typo",
      volume_bbls: 300,
    });

    // Downtime clipped to the day: 2 h of the pump failure, 4 h of the ongoing outage.
    expect(c.downtime.count).toBe(2);
    expect(c.downtime.total_hours_lost).toBe(6);
    expect(c.downtime.entries[0]).toMatchObject({
      id: ids.d1,
      counted_from: iso(S),
      counted_to: iso(S + 2 * H),
      hours_lost: 2,
      ongoing: false,
    });
    expect(c.downtime.entries[1]).toMatchObject({
      id: ids.d2,
      ongoing: true,
      hours_lost: 4,
      counted_to: iso(E),
    });

    expect(c.well_tests.entries).toEqual([
      expect.objectContaining({
        id: ids.w1,
        asset_id: well,
        asset_name: "Pozo-01",
        oil_rate_bopd: 512.5,
        water_cut_pct: 12.5,
        gor_scf_bbl: 350,
      }),
    ]);
    expect(c.lab_results.entries).toEqual([
      expect.objectContaining({ id: ids.l1, api_gravity: 18.4, bsw_pct: 0.8, viscosity_cp: 250 }),
    ]);

    expect(c.meter_readings.count).toBe(2);
    expect(c.meter_readings.meters).toEqual([
      expect.objectContaining({
        meter_id: meter,
        meter_name: "Medidor-01",
        unit: "bbl",
        opening: { reading_id: ids.r0, value: 1000, read_at: iso(S - H), carried_over: true },
        closing: { reading_id: ids.r2, value: 1250.5, read_at: iso(E - 30 * 60_000) },
        delta: 250.5,
      }),
    ]);

    // Telemetry from the rollups only: the raw 1e9 and the buckets either side of the day are out.
    const pozo = c.telemetry.assets.find((a) => a.asset_id === well);
    expect(pozo?.variables.map((v) => v.variable)).toEqual(["flow", "pressure", "temperature", "vibration"]);
    const present = [...Array(288).keys()].filter((i) => i < 60 || i >= 66);
    const pressureSum = present.reduce((n, i) => n + 30 * (i + 5), 0);
    expect(pozo?.variables[1]).toEqual({
      variable: "pressure",
      unit: "psi",
      count: 282 * 30,
      min: 0,
      max: 297,
      avg: Number((pressureSum / (282 * 30)).toPrecision(12)),
      first_bucket: iso(S),
      last_bucket: iso(E - BUCKET_MS),
      poll_interval_ms: 10_000,
      expected_samples: 8640,
      completeness_pct: 97.92,
    });
    expect(pozo?.variables[2]).toMatchObject({
      count: 1440,
      avg: 80,
      expected_samples: 1440,
      completeness_pct: 100,
    });
    expect(pozo?.variables[0]).toMatchObject({
      variable: "flow",
      count: 0,
      poll_interval_ms: null,
      expected_samples: null,
    });
    expect(pozo?.variables[3]).toMatchObject({
      variable: "vibration",
      count: 3,
      avg: 4,
      expected_samples: null,
    });
    expect(c.telemetry.assets.find((a) => a.asset_name === "Tanque-01")?.variables).toEqual([]);
    expect(c.telemetry.samples_received).toBe(282 * 30 + 1440 + 3);
    expect(c.telemetry.samples_expected).toBe(8640 + 1440);

    expect(c.alarms.count).toBe(2);
    expect(c.alarms.entries.map((a) => a.id)).toEqual([ids.a1, ids.a3]);
    expect(c.alarms.by_type).toEqual({ high: 1, low: 0, critical_high: 0, critical_low: 0, comm_loss: 1 });

    expect(c.data_quality).toEqual({
      complete: false,
      gap_count: 2,
      gap_minutes: 80,
      series_with_gaps: 2,
      gaps: [
        {
          asset_id: well,
          variable: "pressure",
          start: iso(S + 5 * H),
          end: iso(S + 5 * H + 30 * 60_000),
          missing_buckets: 6,
          minutes: 30,
        },
        {
          asset_id: well,
          variable: "vibration",
          start: iso(S + H + 2 * BUCKET_MS),
          end: iso(S + 2 * H),
          missing_buckets: 10,
          minutes: 50,
        },
      ],
    });
    expect(c.integrity).toEqual({
      previous_report_sha384: null,
      algorithm: "SHA-384",
      canonicalization: "RFC 8785",
    });
  });

  it("download: exactly the canonical bytes; the hash is sha384sum of the file", async () => {
    const { res, bytes } = await download(t, first.id, admin);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(res.headers.get("content-disposition")).toBe(
      `attachment; filename="anh-campo-rubiales-norte-${DAY}-v1.json"`,
    );
    expect(res.headers.get("x-content-sha384")).toBe(first.hash_sha384);
    expect(sha384sum(bytes)).toBe(first.hash_sha384);
    // The bytes are RFC 8785 canonical: re-canonicalising the parsed content gives them back.
    expect(canonicalize(JSON.parse(bytes.toString("utf8")))).toBe(bytes.toString("utf8"));

    const hash = await t.request(`/api/anh/reports/${first.id}/hash`, { token: admin });
    expect(hash.status).toBe(200);
    expect(hash.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(hash.text).toBe(first.hash_sha384);

    const again = await fetch(`${t.baseUrl}/api/anh/reports/${first.id}/download`, {
      headers: { authorization: `Bearer ${admin}`, "if-none-match": `"${first.hash_sha384}"` },
    });
    expect(again.status).toBe(304);
  });

  it("chains the next day's report to this one's hash", async () => {
    const next = await t.request<Report>("/api/anh/reports/generate", {
      token: admin,
      body: { project_id: projectId, report_date: "2025-03-11" },
    });
    expect(next.status).toBe(201);
    const full = await t.request<Report>(`/api/anh/reports/${next.body.id}`, { token: admin });
    expect(full.body.content?.integrity.previous_report_sha384).toBe(first.hash_sha384);
    ids.next = next.body.id;
  });

  it("a correction makes version 2; version 1's bytes stay as they were", async () => {
    const { bytes: before } = await download(t, first.id, admin);
    await postRecord(t, "movements", {
      project_id: projectId,
      movement_type: "production",
      volume_bbls: 120.5,
      timestamp: iso(S + H),
      supersedes: ids.m1,
      correction_reason: "meter ticket re-read",
    });
    const v2 = await t.request<Report>("/api/anh/reports/generate", {
      token: admin,
      body: { project_id: projectId, report_date: DAY },
    });
    expect(v2.status).toBe(201);
    expect(v2.body).toMatchObject({
      version: 2,
      supersedes: first.id,
      report_date: DAY,
      status: "generated",
    });
    expect(v2.body.hash_sha384).not.toBe(first.hash_sha384);

    const { bytes: after } = await download(t, first.id, admin);
    expect(after.equals(before)).toBe(true);
    expect(sha384sum(after)).toBe(first.hash_sha384);

    const full = await t.request<Report>(`/api/anh/reports/${v2.body.id}`, { token: admin });
    expect(full.body.content?.movements.totals_bbls.production).toBe(620.75);
    expect(full.body.content?.report).toMatchObject({ version: 2, supersedes: first.id });
    // Chained in generation order: the report generated just before it is the next day's.
    const nextHash = (await t.request(`/api/anh/reports/${ids.next}/hash`, { token: admin })).text;
    expect(full.body.content?.integrity.previous_report_sha384).toBe(nextHash);

    const { res } = await download(t, v2.body.id, admin);
    expect(res.headers.get("content-disposition")).toContain(`-${DAY}-v2.json`);
  });

  it("lists every version, newest day first, without content", async () => {
    const res = await t.request<Report[]>(`/api/anh/reports?project_id=${projectId}`, { token: admin });
    expect(res.status).toBe(200);
    expect(res.body.map((r) => [r.report_date, r.version])).toEqual([
      ["2025-03-11", 1],
      [DAY, 2],
      [DAY, 1],
    ]);
    expect(res.body[0]).not.toHaveProperty("content");
    const all = await t.request<Report[]>("/api/anh/reports", { token: admin });
    expect(all.body.length).toBeGreaterThanOrEqual(3);
  });

  it("submit records who and when; a second submit is 409; both audited", async () => {
    const supervisor = await t.userWithRole("supervisor", [projectId]);
    const res = await t.request<Report>(`/api/anh/reports/${first.id}/submit`, {
      method: "POST",
      token: supervisor.token,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: "submitted", submitted_by: supervisor.id });
    expect(Date.parse(res.body.submitted_at ?? "")).toBeGreaterThan(0);
    expect(res.body.hash_sha384).toBe(first.hash_sha384);

    const again = await t.request<{ error: string }>(`/api/anh/reports/${first.id}/submit`, {
      method: "POST",
      token: supervisor.token,
    });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe("Conflict");

    const audit = (
      await t.server.store.audit.list({ entity: "anh_report", entityId: first.id, limit: 10_000 })
    ).reverse();
    expect(audit.map((a) => [a.action, a.after])).toEqual([
      ["create", expect.objectContaining({ status: "generated" })],
      ["update", expect.objectContaining({ status: "submitted" })],
    ]);
    expect(audit[1]?.userId).toBe(supervisor.id);
  });

  it("refuses a day that has not closed yet (409)", async () => {
    const today = new Intl.DateTimeFormat("en-CA", { timeZone: "America/Bogota" }).format(t.clock.now());
    const res = await t.request<{ error: string; message: string }>("/api/anh/reports/generate", {
      token: admin,
      body: { project_id: projectId, report_date: today },
    });
    expect(res.status).toBe(409);
    expect(res.body.message).toContain("has not closed");
  });

  it("a project in Asia/Tokyo cuts its day at 15:00Z", async () => {
    const tokyo = await createProject(t, { timezone: "Asia/Tokyo" });
    const asset = await createAsset(t, tokyo, "Well-T", "well");
    const series = await seedSeries(t, tokyo, asset, "level");
    const start = Date.parse("2025-03-09T15:00:00Z");
    await seedBuckets(t, series, [
      { bucket: start - BUCKET_MS, count: 1, sum: 7, min: 7, max: 7 },
      { bucket: start, count: 1, sum: 1, min: 1, max: 1 },
      { bucket: start + 86_400_000 - BUCKET_MS, count: 1, sum: 3, min: 3, max: 3 },
      { bucket: start + 86_400_000, count: 1, sum: 9, min: 9, max: 9 },
    ]);
    const res = await t.request<Report>("/api/anh/reports/generate", {
      token: admin,
      body: { project_id: tokyo, report_date: DAY },
    });
    expect(res.body.period_start).toBe("2025-03-09T15:00:00.000Z");
    const full = await t.request<Report>(`/api/anh/reports/${res.body.id}`, { token: admin });
    expect(full.body.content?.telemetry.assets[0]?.variables[0]).toMatchObject({
      count: 2,
      min: 1,
      max: 3,
      avg: 2,
    });
    expect(full.body.content?.report.utc_offset_start).toBe("+09:00");
  });
});
