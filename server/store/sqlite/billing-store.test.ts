import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { NewInvoiceRow } from "../rows.ts";
import { type DatabaseHandle, openDatabase } from "./client.ts";
import { SqliteStore } from "./sqlite-store.ts";

/*
 * What the billing, telemetry-read, alarm and report ports promise beyond the queries they took
 * over from the services: orderings, "nothing" answers, scopes and the insert that never collides.
 */
describe("billing, telemetry, alarm and report ports on SQLite", () => {
  let dir: string;
  let handle: DatabaseHandle;
  let store: SqliteStore;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "caudal-billing-store-"));
    handle = openDatabase(join(dir, "caudal.db"));
    store = new SqliteStore(handle);
  });
  afterEach(() => {
    handle.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const run = (sql: string, ...params: unknown[]) => handle.sqlite.prepare(sql).run(...params);

  async function project(name: string, id: string = randomUUID(), isActive = true): Promise<string> {
    const now = new Date(0);
    await store.field.insertProject({ id, name, slug: id, isActive, createdAt: now, updatedAt: now });
    return id;
  }
  function asset(projectId: string, name = "a"): string {
    const id = randomUUID();
    run(
      "INSERT INTO assets (id, project_id, name, asset_type, created_at, updated_at) VALUES (?, ?, ?, 'well', 0, 0)",
      id,
      projectId,
      name,
    );
    return id;
  }
  function device(assetId: string, enabled = true): void {
    run(
      "INSERT INTO devices (id, asset_id, name, protocol, enabled, created_at, updated_at) VALUES (?, ?, 'd', 'modbus_tcp', ?, 0, 0)",
      randomUUID(),
      assetId,
      enabled ? 1 : 0,
    );
  }
  function series(projectId: string, assetId: string, variable: string, lastTs: number | null): number {
    const r = run(
      "INSERT INTO telemetry_series (project_id, asset_id, variable, unit, last_ts, last_value) VALUES (?, ?, ?, 'psi', ?, ?)",
      projectId,
      assetId,
      variable,
      lastTs,
      lastTs === null ? null : lastTs / 1000,
    );
    return Number(r.lastInsertRowid);
  }
  const invoice = (projectId: string, period: string, amountCents: number): NewInvoiceRow => ({
    id: randomUUID(),
    projectId,
    period,
    plan: "starter",
    amountCents,
    status: "pending",
    issuedAt: new Date(0),
    paidAt: null,
  });

  it("lists subscriptions in the order they started, then by project id", async () => {
    const [b, a, c] = [await project("b", "b"), await project("a", "a"), await project("c", "c")];
    for (const [projectId, ms] of [
      [c, 5],
      [b, 7],
      [a, 7],
    ] as const) {
      const at = new Date(ms);
      await store.billing.insertSubscription({ projectId, plan: "starter", startedAt: at, updatedAt: at });
    }
    expect((await store.billing.subscriptions()).map((s) => s.projectId)).toEqual([c, a, b]);
    await expect(
      store.billing.insertSubscription({
        projectId: a,
        plan: "starter",
        startedAt: new Date(),
        updatedAt: new Date(),
      }),
    ).rejects.toThrow();
    expect(await store.billing.updatePlan("none", "enterprise", new Date(9))).toBeUndefined();
    expect(await store.billing.updatePlan(a, "enterprise", new Date(9))).toMatchObject({
      plan: "enterprise",
      startedAt: new Date(7),
      updatedAt: new Date(9),
    });
  });

  it("inserts one invoice per project and month: a second gives undefined and writes nothing", async () => {
    const p = await project("p");
    const first = await store.billing.insertInvoiceUnlessIssued(invoice(p, "2025-03", 100));
    expect(first).toMatchObject({ period: "2025-03", amountCents: 100, status: "pending" });
    expect(await store.billing.insertInvoiceUnlessIssued(invoice(p, "2025-03", 999))).toBeUndefined();
    await store.billing.insertInvoiceUnlessIssued(invoice(p, "2025-04", 200));
    await store.billing.insertInvoiceUnlessIssued(invoice(p, "2024-12", 300));
    const list = await store.billing.invoicesOf(p);
    expect(list.map((i) => [i.period, i.amountCents])).toEqual([
      ["2025-04", 200],
      ["2025-03", 100],
      ["2024-12", 300],
    ]);
    expect(await store.billing.hasInvoice(p, "2025-03")).toBe(true);
    expect(await store.billing.hasInvoice(p, "2025-05")).toBe(false);
  });

  it("sums paid invoices only, 0 when none is paid", async () => {
    const p = await project("p");
    const [a, b] = [invoice(p, "2025-01", 19_900), invoice(p, "2025-02", 79_901)];
    await store.billing.insertInvoiceUnlessIssued(a);
    await store.billing.insertInvoiceUnlessIssued(b);
    await store.billing.insertInvoiceUnlessIssued(invoice(p, "2025-03", 5));
    expect(await store.billing.paidRevenueCents()).toBe(0);
    await store.billing.updateInvoiceStatus(a.id, "paid", new Date(1));
    const paid = await store.billing.updateInvoiceStatus(b.id, "paid", new Date(2));
    expect(paid).toMatchObject({ status: "paid", paidAt: new Date(2) });
    expect(await store.billing.paidRevenueCents()).toBe(99_801);
    expect(await store.billing.updateInvoiceStatus("none", "paid", null)).toBeUndefined();
    expect(await store.billing.invoice("none")).toBeUndefined();
  });

  it("reads the points counted at ingest, 0 for a month without a count", async () => {
    const p = await project("p");
    run("INSERT INTO usage_counters (project_id, period, telemetry_points) VALUES (?, '2025-03', 1234)", p);
    expect(await store.billing.telemetryPoints(p, "2025-03")).toBe(1234);
    expect(await store.billing.telemetryPoints(p, "2025-04")).toBe(0);
  });

  it("counts enabled devices whose asset reported since a time, or has a 5-minute rollup in a range", async () => {
    const p = await project("p");
    const [recent, old, silent] = [asset(p, "recent"), asset(p, "old"), asset(p, "silent")];
    device(recent);
    device(recent);
    device(recent, false);
    device(old);
    device(silent);
    series(p, recent, "pressure", 2_000);
    const oldSeries = series(p, old, "pressure", 500);
    series(p, silent, "pressure", null);
    run(
      "INSERT INTO telemetry_rollup_5m (series_id, bucket, count, sum, min, max) VALUES (?, 300000, 1, 1, 1, 1)",
      oldSeries,
    );
    expect(await store.telemetry.devicesReportingSince(p, 1_000)).toBe(2);
    expect(await store.telemetry.devicesReportingSince(p, 500)).toBe(3);
    expect(await store.telemetry.devicesReportedIn(p, 300_000, 600_000)).toBe(1);
    expect(await store.telemetry.devicesReportedIn(p, 0, 300_000)).toBe(0);
    expect(await store.telemetry.devicesReportedIn(await project("q"), 0, 600_000)).toBe(0);
  });

  it("scopes telemetry and alarm counts to the projects given; an empty list matches nothing", async () => {
    const [p, q] = [await project("p"), await project("q")];
    series(p, asset(p), "pressure", 1_000);
    series(q, asset(q), "pressure", 1_000);
    series(q, asset(q, "stale"), "pressure", 10);
    expect(await store.telemetry.activeAssetCount(100)).toBe(2);
    expect(await store.telemetry.activeAssetCount(0)).toBe(3);
    expect(await store.telemetry.activeAssetCount(0, [q])).toBe(2);
    expect(await store.telemetry.activeAssetCount(0, [])).toBe(0);

    const alarm = (projectId: string, active: boolean, acknowledged: boolean) =>
      run(
        "INSERT INTO alarms (id, project_id, variable, value, alarm_type, severity, message, timestamp, active, acknowledged, created_at) VALUES (?, ?, 'v', 1, 'high', 'warning', 'm', 0, ?, ?, 0)",
        randomUUID(),
        projectId,
        active ? 1 : 0,
        acknowledged ? 1 : 0,
      );
    alarm(p, true, true);
    alarm(p, false, false);
    alarm(p, false, true); // returned and acknowledged: no longer listed
    alarm(q, true, false);
    expect(await store.alarms.listedCount()).toBe(3);
    expect(await store.alarms.listedCount([p])).toBe(2);
    expect(await store.alarms.listedCount([])).toBe(0);
  });

  it("gives the newest readings first, ties by series id, only series that have one", async () => {
    const p = await project("p");
    const a = asset(p, "Pozo");
    // v1 and v3 share a time: the older series (lower id) comes first.
    series(p, a, "v1", 3_000);
    series(p, a, "v2", 5_000);
    series(p, a, "v3", 3_000);
    series(p, a, "v4", null);
    const readings = await store.telemetry.recentReadings(10);
    expect(readings.map((r) => r.variable)).toEqual(["v2", "v1", "v3"]);
    expect(readings[0]).toEqual({
      projectId: p,
      assetId: a,
      assetName: "Pozo",
      variable: "v2",
      unit: "psi",
      value: 5,
      ts: 5_000,
    });
    expect((await store.telemetry.recentReadings(2)).map((r) => r.variable)).toEqual(["v2", "v1"]);
    expect(await store.telemetry.recentReadings(10, [])).toEqual([]);
    expect(await store.telemetry.recentReadings(10, [await project("q")])).toEqual([]);
  });

  it("lists active projects by name then id, and finds a day's highest report version", async () => {
    await project("same", "z");
    await project("same", "m");
    await project("alpha", "y");
    await project("hidden", "x", false);
    expect((await store.field.activeProjects()).map((p) => p.id)).toEqual(["y", "m", "z"]);
    expect((await store.field.activeProjects(["z", "x"])).map((p) => p.id)).toEqual(["z"]);
    expect(await store.field.activeProjects([])).toEqual([]);

    const report = (version: number, status: string, content: Buffer | null) =>
      run(
        "INSERT INTO anh_reports (id, project_id, report_date, period_start, period_end, status, version, content, created_at) VALUES (?, 'z', '2025-03-10', 0, 1, ?, ?, ?, 0)",
        `r${version}`,
        status,
        version,
        content,
      );
    expect(await store.reports.latestVersion("z", "2025-03-10")).toBeUndefined();
    report(1, "generated", Buffer.from("{}"));
    report(2, "pending", null);
    expect(await store.reports.latestVersion("z", "2025-03-10")).toMatchObject({
      id: "r2",
      projectId: "z",
      reportDate: "2025-03-10",
      version: 2,
      status: "pending",
      content: null,
    });
    expect(await store.reports.latestVersion("z", "2025-03-11")).toBeUndefined();
  });
});
