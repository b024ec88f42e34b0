import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { NewAnhReportRow } from "../rows.ts";
import { type DatabaseHandle, openDatabase } from "./client.ts";
import { SqliteStore } from "./sqlite-store.ts";

/*
 * What the ports promise the ANH report beyond the queries they took over from it: orderings
 * (byte order on ids), windows, "current" records, the rollup totals and holes, and settling
 * rollups through whatever writes them.
 */
describe("the report's reads on SQLite: reports, rollups, records, alarms", () => {
  let dir: string;
  let handle: DatabaseHandle;
  let store: SqliteStore;
  const B = 300_000;
  const at = (ms: number) => new Date(ms);

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "caudal-report-reads-"));
    handle = openDatabase(join(dir, "caudal.db"));
    store = new SqliteStore(handle);
    for (const id of ["p", "q"]) {
      await store.field.insertProject({ id, name: id, slug: id, createdAt: at(0), updatedAt: at(0) });
    }
    for (const [id, projectId] of [
      ["a", "p"],
      ["m", "p"],
      ["x", "q"],
    ] as const) {
      await store.field.insertAsset({
        id,
        projectId,
        name: id,
        assetType: "well",
        createdAt: at(0),
        updatedAt: at(0),
      });
    }
  });
  afterEach(() => {
    handle.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const run = (sql: string, ...params: unknown[]) => handle.sqlite.prepare(sql).run(...params);

  function report(row: Partial<NewAnhReportRow> & { id: string; projectId: string }): Promise<unknown> {
    return store.reports.insert({
      reportDate: "2025-03-10",
      periodStart: at(0),
      periodEnd: at(1000),
      status: "generated",
      version: 1,
      createdAt: at(0),
      ...row,
    });
  }

  describe("ReportStore", () => {
    it("lists without bytes: newest day, newest version, then project id in byte order; scoped", async () => {
      await report({ id: "1", projectId: "q", reportDate: "2025-03-09", content: Buffer.from("{}") });
      await report({ id: "2", projectId: "q", reportDate: "2025-03-10" });
      await report({ id: "3", projectId: "p", reportDate: "2025-03-10" });
      await report({ id: "4", projectId: "p", reportDate: "2025-03-10", version: 2, supersedes: "3" });
      const ids = (rows: { id: string }[]) => rows.map((r) => r.id);
      const all = await store.reports.list();
      expect(ids(all)).toEqual(["4", "3", "2", "1"]);
      expect(all.every((r) => !("content" in r))).toBe(true);
      expect(ids(await store.reports.list(["q"]))).toEqual(["2", "1"]);
      expect(await store.reports.list([])).toEqual([]);
    });

    it("finds a report, a day's highest version whole, whether a day is open; updates return the row", async () => {
      expect(await store.reports.hasDay("p", "2025-03-10")).toBe(false);
      await report({ id: "r1", projectId: "p", content: Buffer.from("[1]"), hashSha384: "h1" });
      await report({ id: "r2", projectId: "p", version: 2, status: "pending", supersedes: "r1" });
      expect(await store.reports.hasDay("p", "2025-03-10")).toBe(true);
      expect(await store.reports.hasDay("p", "2025-03-11")).toBe(false);
      expect(await store.reports.latestVersion("p", "2025-03-10")).toMatchObject({ id: "r2", version: 2 });
      expect((await store.reports.report("r1"))?.content?.toString()).toBe("[1]");
      expect(await store.reports.report("nope")).toBeUndefined();
      const after = await store.reports.update("r2", { status: "generated", hashSha384: "h2" });
      expect(after).toMatchObject({ id: "r2", status: "generated", hashSha384: "h2", supersedes: "r1" });
      expect(await store.reports.update("nope", { status: "submitted" })).toBeUndefined();
      await expect(report({ id: "dup", projectId: "p", version: 2 })).rejects.toThrow(/UNIQUE/);
    });

    it("gives the chain links of generated reports by generated_at, then id", async () => {
      await report({
        id: "b",
        projectId: "p",
        hashSha384: "hb",
        previousHashSha384: "ha",
        generatedAt: at(20),
      });
      await report({ id: "a", projectId: "p", version: 2, hashSha384: "ha", generatedAt: at(10) });
      await report({ id: "0", projectId: "p", version: 3, hashSha384: "h0", generatedAt: at(20) });
      await report({ id: "pending", projectId: "p", version: 4, status: "pending" });
      await report({ id: "other", projectId: "q", hashSha384: "hq", generatedAt: at(1) });
      expect(await store.reports.chainLinks("p")).toEqual([
        { hash: "ha", previous: null, generatedAt: at(10) },
        { hash: "h0", previous: null, generatedAt: at(20) },
        { hash: "hb", previous: "ha", generatedAt: at(20) },
      ]);
    });

    it("lists the pending reports due by period end, then project id, then date", async () => {
      await report({ id: "1", projectId: "q", status: "pending", periodEnd: at(500) });
      await report({
        id: "2",
        projectId: "p",
        status: "pending",
        periodEnd: at(500),
        reportDate: "2025-03-11",
      });
      await report({ id: "3", projectId: "p", status: "pending", periodEnd: at(500) });
      await report({
        id: "4",
        projectId: "p",
        status: "pending",
        periodEnd: at(100),
        reportDate: "2025-03-01",
      });
      await report({
        id: "5",
        projectId: "p",
        status: "pending",
        periodEnd: at(501),
        reportDate: "2025-03-12",
      });
      await report({
        id: "6",
        projectId: "p",
        status: "generated",
        periodEnd: at(1),
        reportDate: "2025-02-01",
      });
      expect(await store.reports.pendingDue(at(500))).toEqual([
        { projectId: "p", reportDate: "2025-03-01" },
        { projectId: "p", reportDate: "2025-03-10" },
        { projectId: "p", reportDate: "2025-03-11" },
        { projectId: "q", reportDate: "2025-03-10" },
      ]);
    });
  });

  describe("TelemetryStore", () => {
    function series(id: number, projectId: string, assetId: string, variable: string, unit: string | null) {
      run(
        "INSERT INTO telemetry_series (id, project_id, asset_id, variable, unit) VALUES (?, ?, ?, ?, ?)",
        id,
        projectId,
        assetId,
        variable,
        unit,
      );
    }
    function bucket(seriesId: number, start: number, count: number, sum: number, min: number, max: number) {
      run(
        "INSERT INTO telemetry_rollup_5m (series_id, bucket, count, sum, min, max) VALUES (?, ?, ?, ?, ?, ?)",
        seriesId,
        start,
        count,
        sum,
        min,
        max,
      );
    }

    it("gives every series of the project by id with its window's totals and holes", async () => {
      series(7, "p", "a", "pressure", "psi");
      series(3, "p", "m", "idle", null);
      series(9, "q", "x", "pressure", "psi");
      // Outside the window [10B, 30B): before, at its end.
      bucket(7, 9 * B, 100, 1, 0, 1);
      bucket(7, 30 * B, 100, 1, 0, 1);
      // Inside: holes of 1 bucket (12B) and of 3 (15B..18B); sums that need compensation.
      for (const [b, sum] of [
        [10, 1e16],
        [11, 1],
        [13, -1e16],
        [14, 2.5],
        [18, 0.5],
      ] as const) {
        bucket(7, b * B, 2, sum, -b, b);
      }
      bucket(9, 10 * B, 1, 1, 1, 1);
      expect(await store.telemetry.seriesRollups("p", 10 * B, 30 * B)).toEqual([
        { seriesId: 3, assetId: "m", variable: "idle", unit: null, totals: null, holes: [] },
        {
          seriesId: 7,
          assetId: "a",
          variable: "pressure",
          unit: "psi",
          totals: { count: 10, sum: 4, min: -18, max: 18, firstBucket: 10 * B, lastBucket: 18 * B },
          holes: [
            [12 * B, 13 * B],
            [15 * B, 18 * B],
          ],
        },
      ]);
      expect(await store.telemetry.seriesRollups("nope", 0, 100 * B)).toEqual([]);
    });
  });

  describe("RecordStore: the report's current records", () => {
    const record = (id: string, extra: Record<string, unknown> = {}) => ({
      id,
      projectId: "p",
      createdAt: at(0),
      ...extra,
    });

    it("lists current records within [from, to) by instant then id in byte order", async () => {
      const movement = (id: string, ts: number, supersedes: string | null = null, projectId = "p") =>
        store.records.append("movement", {
          ...record(id, { projectId }),
          movementType: "production",
          volumeBbls: 1,
          timestamp: at(ts),
          supersedes,
        });
      await movement("b", 100);
      await movement("B", 100);
      await movement("a", 50);
      await movement("edge-from", 10);
      await movement("edge-to", 200);
      await movement("old", 120);
      await movement("corr-outside", 500, "old"); // supersedes "old" from outside the window
      await movement("other-project", 100, null, "q");
      const rows = await store.records.currentIn("movement", "p", at(10), at(200));
      expect(rows.map((r) => r.id)).toEqual(["edge-from", "a", "B", "b"]);
    });

    it("takes downtime that overlaps the window, ongoing included", async () => {
      const entry = (id: string, from: number, to: number | null, supersedes: string | null = null) =>
        store.records.append("downtime", {
          ...record(id),
          reason: id,
          startedAt: at(from),
          endedAt: to === null ? null : at(to),
          supersedes,
        });
      await entry("ends-at-from", 0, 100);
      await entry("spans-from", 50, 150);
      await entry("ongoing", 90, null);
      await entry("inside", 120, 130);
      await entry("starts-at-to", 200, 300);
      await entry("replaced", 150, 160);
      await entry("replacement", 150, 170, "replaced");
      const rows = await store.records.currentIn("downtime", "p", at(100), at(200));
      expect(rows.map((r) => r.id)).toEqual(["spans-from", "ongoing", "inside", "replacement"]);
    });

    it("finds a meter's newest current reading at or before an instant", async () => {
      const reading = (id: string, meterId: string, ts: number, supersedes: string | null = null) =>
        store.records.append("meter_reading", {
          ...record(id),
          meterId,
          readingValue: 1,
          readAt: at(ts),
          supersedes,
        });
      expect(await store.records.meterReadingAtOrBefore("p", "m", at(100))).toBeUndefined();
      await reading("r1", "m", 40);
      await reading("r2", "m", 60);
      await reading("r3", "m", 60);
      await reading("later", "m", 101);
      await reading("other-meter", "a", 99);
      expect((await store.records.meterReadingAtOrBefore("p", "m", at(100)))?.id).toBe("r3");
      await reading("fix-r3", "m", 200, "r3");
      await reading("fix-r2", "m", 200, "r2");
      expect((await store.records.meterReadingAtOrBefore("p", "m", at(100)))?.id).toBe("r1");
      expect((await store.records.meterReadingAtOrBefore("p", "m", at(40)))?.id).toBe("r1");
      expect(await store.records.meterReadingAtOrBefore("q", "m", at(100))).toBeUndefined();
    });
  });

  it("AlarmStore lists the alarms raised in [from, to) by time then id in byte order", async () => {
    const alarm = (id: string, projectId: string, ts: number) =>
      run(
        `INSERT INTO alarms (id, project_id, asset_id, variable, value, alarm_type, severity, message, timestamp, created_at)
         VALUES (?, ?, NULL, 'v', 1, 'high', 'warning', 'm', ?, 0)`,
        id,
        projectId,
        ts,
      );
    alarm("b", "p", 100);
    alarm("B", "p", 100);
    alarm("a", "p", 150);
    alarm("at-from", "p", 10);
    alarm("at-to", "p", 200);
    alarm("other", "q", 100);
    const rows = await store.alarms.raisedIn("p", at(10), at(200));
    expect(rows.map((r) => r.id)).toEqual(["at-from", "B", "b", "a"]);
  });
});
