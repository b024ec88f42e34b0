import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  BUCKET_MS,
  bucketsBetween,
  createAsset,
  createDevice,
  createProject,
  createVariable,
  expectError,
  insertAlarm,
  postRecord,
  seedBuckets,
  seedSeries,
  setClock,
  setLastReading,
} from "../../testing/fixtures/report-fixtures.ts";
import { TestServer } from "../../testing/harness.ts";
import { tableProbe } from "../../testing/table-probe.ts";

type Stretch = { from: string; to: string; volume_bbls: number; movements: number };
type Overview = {
  as_of: string;
  sparkline: { from: string; to: string; bucket_seconds: number };
  projects: {
    project_id: string;
    name: string;
    timezone: string;
    agent: { status: string; last_seen: string | null; reasons: string[] };
    production: { unit: string; today: Stretch; yesterday: Stretch };
    completeness: {
      from: string;
      to: string;
      samples_received: number;
      samples_expected: number;
      ratio: number | null;
    };
    alarms: { id: string; severity: string; timestamp: string }[];
    assets: {
      asset_id: string;
      name: string;
      variable_count: number;
      poll_interval_ms: number | null;
      last_reading_at: string | null;
      key_variables: {
        variable: string;
        unit: string | null;
        value: number | null;
        timestamp: string | null;
        spark: (number | null)[];
      }[];
    }[];
  }[];
};
type Preview = { content: { telemetry: { samples_received: number; samples_expected: number } } };

const at = (s: string) => Date.parse(s);
// 10:00 on the 11th in Bogota (UTC−5): today began at 05:00Z, yesterday at 05:00Z on the 10th.
const NOW = at("2025-03-11T15:00:00Z");
const TODAY = at("2025-03-11T05:00:00Z");
const MIN = 60_000;
const HOUR = 60 * MIN;
/** An instant a request answers "now" with: NOW, plus the moments the request took. */
const aboutNow = (offset = 0) => ({
  asymmetricMatch: (iso: unknown) => {
    const d = typeof iso === "string" ? Date.parse(iso) - (NOW + offset) : Number.NaN;
    return d >= 0 && d < 5_000;
  },
  toString: () => `about ${new Date(NOW + offset).toISOString()}`,
});

describe("GET /api/dashboard/overview", () => {
  let t: TestServer;
  let root: string;
  let operador: string;
  let reader: string;
  let p1: string;
  let p2: string;
  let well: string;
  let tank: string;
  const alarms: Record<string, string> = {};

  // The test clock runs on from where it is set: each request sets it to NOW again.
  const overview = async (token: string, query = ""): Promise<Overview> => {
    setClock(t, NOW);
    const res = await t.request<Overview>(`/api/dashboard/overview${query}`, { token });
    expect(res.status, res.text).toBe(200);
    return res.body;
  };

  beforeAll(async () => {
    t = await TestServer.start();
    // Created the day before: completeness counts from today's 00:00.
    setClock(t, at("2025-03-10T12:00:00Z"));
    await t.admin();
    p1 = await createProject(t, { name: "A field", timezone: "America/Bogota" });
    p2 = await createProject(t, { name: "B field", timezone: "America/Bogota" });
    well = await createAsset(t, p1, "Well 1");
    tank = await createAsset(t, p1, "Tank 1", "tank");
    const device = await createDevice(t, well);
    await createVariable(t, device, "flow", 60_000, "bbl/d");
    await createVariable(t, device, "aaa_polled", 60_000);
    await createVariable(t, device, "temperature", 10_000, "degF");
    const rule = await t.request("/api/alert-rules", {
      token: (await t.admin()).token,
      body: {
        project_id: p1,
        name: "High pressure",
        variable_alias: "pressure",
        condition: "gt",
        threshold: 1500,
        severity: "critical",
      },
    });
    expect(rule.status, rule.text).toBe(201);

    // Yesterday: 80 bbl at 07:00 local, 500 at 11:00 (after the hour today has reached), a transfer.
    const movement = (type: string, volume: number, ts: number) =>
      postRecord(t, "movements", {
        project_id: p1,
        movement_type: type,
        volume_bbls: volume,
        timestamp: new Date(ts).toISOString(),
      });
    setClock(t, NOW);
    await movement("production", 80, TODAY - 24 * HOUR + 7 * HOUR);
    await movement("production", 500, TODAY - 24 * HOUR + 11 * HOUR);
    await movement("production", 100.25, TODAY + 8 * HOUR);
    await movement("production", 20, TODAY + 9 * HOUR);
    await movement("transfer", 999, TODAY + 9 * HOUR);

    // flow: 5 readings a 5-minute bucket from 00:00 to 10:00, but none from 02:00 to 03:00.
    const flow = await seedSeries(t, p1, well, "flow", "bbl/d");
    await seedBuckets(
      t,
      flow,
      bucketsBetween(
        TODAY,
        NOW,
        (b) => ({ count: 5, sum: 5 * (b === NOW - BUCKET_MS ? 123.456789 : 100), min: 90, max: 130 }),
        (b) => b >= TODAY + 2 * HOUR && b < TODAY + 3 * HOUR,
      ),
    );
    await setLastReading(t, flow, NOW - 30_000, 123.5);
    const pressure = await seedSeries(t, p1, well, "pressure", "psi");
    await setLastReading(t, pressure, NOW - 2 * MIN, 1650);
    const level = await seedSeries(t, p1, tank, "level", "ft");
    await setLastReading(t, level, NOW - 3 * HOUR, 12.5);
    for (const name of ["zz1", "zz2"])
      await setLastReading(t, await seedSeries(t, p1, well, name), NOW - MIN, 1);

    const alarm = async (name: string, severity: string, ago: number, active = true) => {
      alarms[name] = await insertAlarm(t, {
        projectId: p1,
        assetId: well,
        variable: "pressure",
        value: 1650,
        alarmType: "high",
        at: NOW - ago,
        active,
      });
      await tableProbe(t.server).run("UPDATE alarms SET severity = ? WHERE id = ?", [severity, alarms[name]]);
    };
    await alarm("oldWarning", "warning", 50 * MIN);
    await alarm("newWarning", "warning", 5 * MIN);
    await alarm("oldCritical", "critical", 40 * MIN);
    await alarm("info", "info", MIN);
    await alarm("returned", "critical", 30 * MIN, false);

    const [r, o, a] = await Promise.all([
      t.admin(),
      t.userWithRole("operador", [p1]),
      t.userWithRole("anh_reader", [p1]),
    ]);
    root = (await t.login(r.email, r.password)).body.token ?? "";
    operador = o.token;
    reader = a.token;
  });
  afterAll(async () => t.stop());

  it("gives each visible project with its assets, key variables, sparklines and agent state", async () => {
    const o = await overview(root, `?project_id=${p1}`);
    expect(o.as_of).toEqual(aboutNow());
    expect(o.sparkline).toEqual({
      from: new Date(NOW + BUCKET_MS - 6 * HOUR).toISOString(),
      to: new Date(NOW + BUCKET_MS).toISOString(),
      bucket_seconds: 300,
    });
    const [p] = o.projects;
    expect(p?.agent).toEqual({ status: "none", last_seen: null, reasons: [] });
    expect(p?.assets.map((a) => a.name)).toEqual(["Tank 1", "Well 1"]);
    const w = p?.assets.find((a) => a.asset_id === well);
    // Watched by a rule, then polled (by name), then the others: four of six.
    expect(w?.key_variables.map((k) => k.variable)).toEqual([
      "pressure",
      "aaa_polled",
      "flow",
      "temperature",
    ]);
    expect(w).toMatchObject({
      variable_count: 6,
      poll_interval_ms: 10_000,
      last_reading_at: new Date(NOW - 30_000).toISOString(),
    });
    expect(w?.key_variables[0]).toEqual({
      variable: "pressure",
      unit: "psi",
      value: 1650,
      timestamp: new Date(NOW - 2 * MIN).toISOString(),
      spark: new Array(72).fill(null),
    });
    expect(w?.key_variables[1]).toMatchObject({ value: null, timestamp: null, spark: [] });
    const spark = w?.key_variables[2]?.spark ?? [];
    // 6 hours back from the bucket now filling: 04:00 to 10:05 local; 10:00–10:05 is still empty.
    expect(spark).toHaveLength(72);
    expect(spark.at(-1)).toBeNull();
    expect(spark.at(-2)).toBe(123.5);
    expect(spark[0]).toBe(100);
    expect(p?.assets.find((a) => a.asset_id === tank)).toMatchObject({
      variable_count: 1,
      poll_interval_ms: null,
      last_reading_at: new Date(NOW - 3 * HOUR).toISOString(),
    });
    expect((await overview(root)).projects.map((x) => x.name)).toEqual(
      expect.arrayContaining(["A field", "B field"]),
    );
    expect((await overview(root, "?hours=1")).projects[0]?.assets[1]?.key_variables[2]?.spark).toHaveLength(
      12,
    );
  });

  it("today's production so far against yesterday's at the same hour, as the ANH report sums it", async () => {
    const [p] = (await overview(operador)).projects;
    expect(p?.production).toEqual({
      unit: "bbl",
      today: {
        from: new Date(TODAY).toISOString(),
        to: aboutNow(),
        volume_bbls: 120.25,
        movements: 2,
      },
      yesterday: {
        from: new Date(TODAY - 24 * HOUR).toISOString(),
        to: aboutNow(-24 * HOUR),
        volume_bbls: 80,
        movements: 1,
      },
    });
  });

  it("completeness so far today: the report's counts against what the hours elapsed expect", async () => {
    const [p] = (await overview(operador)).projects;
    const preview = await t.request<Preview>(`/api/anh/reports/preview?project_id=${p1}`, { token: root });
    expect(preview.status).toBe(200);
    // 10 hours of flow but one (5 × 12 × 9 readings), the same count the preview reads.
    const received = 5 * 12 * 9;
    expect(preview.body.content.telemetry.samples_received).toBe(received);
    // 10 h so far of 3 polled variables: 600 + 600 + 3600 (the whole day: 1440 + 1440 + 8640).
    expect(preview.body.content.telemetry.samples_expected).toBe(11_520);
    expect(p?.completeness).toEqual({
      from: new Date(TODAY).toISOString(),
      to: aboutNow(),
      samples_received: received,
      samples_expected: 4_800,
      ratio: received / 4_800,
    });
  });

  it("a project created today counts from its creation, and one with nothing polled has no ratio", async () => {
    setClock(t, NOW - 47 * MIN); // 09:13 local
    const fresh = await createProject(t, { name: "C field", timezone: "America/Bogota" });
    const asset = await createAsset(t, fresh, "w");
    await createVariable(t, await createDevice(t, asset), "flow", 60_000);
    setClock(t, NOW);
    const res = await overview(root, `?project_id=${fresh}`);
    expect(res.projects[0]?.completeness).toEqual({
      from: new Date(NOW - 50 * MIN).toISOString(),
      to: aboutNow(),
      samples_received: 0,
      samples_expected: 50,
      ratio: 0,
    });
    const [empty] = (await overview(root, `?project_id=${p2}`)).projects;
    expect(empty?.completeness.ratio).toBeNull();
    expect(empty?.assets).toEqual([]);
  });

  it("lists the alarms GET /alarms lists, most severe first, then newest first", async () => {
    const [p] = (await overview(operador)).projects;
    expect(p?.alarms.map((a) => a.id)).toEqual([
      alarms.returned,
      alarms.oldCritical,
      alarms.newWarning,
      alarms.oldWarning,
      alarms.info,
    ]);
    const listed = await t.request<{ id: string }[]>(`/api/alarms?project_id=${p1}`, { token: operador });
    expect(new Set(listed.body.map((a) => a.id))).toEqual(new Set(p?.alarms.map((a) => a.id)));
  });

  it("an operador sees only their projects; another's or an unknown one is 404", async () => {
    expect((await overview(operador)).projects.map((p) => p.project_id)).toEqual([p1]);
    for (const id of [p2, "00000000-0000-4000-8000-000000000000"]) {
      expectError(
        await t.request(`/api/dashboard/overview?project_id=${id}`, { token: operador }),
        404,
        "NotFound",
      );
    }
  });

  it("401 without a valid token, 403 for a role without telemetry", async () => {
    expectError(await t.request("/api/dashboard/overview"), 401, "Unauthorized");
    expectError(await t.request("/api/dashboard/overview", { token: "x.y.z" }), 401, "Unauthorized");
    expectError(await t.request("/api/dashboard/overview", { token: reader }), 403, "Forbidden");
  });

  it("400 naming the field for each bad query value", async () => {
    for (const [query, field] of [
      ["project_id=nope", "project_id"],
      ["project_id=", "project_id"],
      ["hours=0", "hours"],
      ["hours=25", "hours"],
      ["hours=1.5", "hours"],
      ["hours=six", "hours"],
      ["hours=", "hours"],
    ] as const) {
      const res = await t.request(`/api/dashboard/overview?${query}`, { token: root });
      expect(res.status, query).toBe(400);
      expectError(res, 400, "ValidationFailed", field);
    }
  });
});
