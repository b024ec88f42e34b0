import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, expect, it } from "vitest";
import type { NewAnhReportRow } from "../../rows.ts";
import type { ContractBackend, StoreUnderTest } from "./backend.ts";
import { at, newProject, newUser } from "./fixtures.ts";

/** ReportStore (server/store/ports/report-store.ts) on every backend. */
export function reportStoreContract(backend: ContractBackend): void {
  let t: StoreUnderTest;
  let p: string;
  let q: string;
  beforeEach(async () => {
    t = await backend.open();
    p = (await t.store.field.insertProject(newProject("P", { id: "p" }))).id;
    q = (await t.store.field.insertProject(newProject("Q", { id: "Q" }))).id;
  });
  afterEach(async () => {
    await t.close();
  });

  const report = (
    projectId: string,
    reportDate: string,
    more: Partial<NewAnhReportRow> = {},
  ): NewAnhReportRow => ({
    id: randomUUID(),
    projectId,
    reportDate,
    periodStart: new Date(`${reportDate}T05:00:00.000Z`),
    periodEnd: new Date(Date.parse(`${reportDate}T05:00:00.000Z`) + 86_400_000),
    status: "pending",
    createdAt: at(),
    ...more,
  });
  const stored = (row: NewAnhReportRow) => ({
    version: 1,
    supersedes: null,
    content: null,
    hashSha384: null,
    previousHashSha384: null,
    generatedAt: null,
    submittedAt: null,
    submittedBy: null,
    ...row,
  });

  it("inserts a report as given and reads it back whole; the day's highest version is the latest", async () => {
    const v1 = report(p, "2026-01-02", {
      status: "generated",
      content: Buffer.from([0, 255, 1]),
      hashSha384: "h1",
    });
    expect(await t.store.reports.insert(v1)).toStrictEqual(stored(v1));
    expect(await t.store.reports.report(v1.id)).toStrictEqual(stored(v1));
    expect(await t.store.reports.latestVersion(p, "2026-01-02")).toStrictEqual(stored(v1));
    const v2 = report(p, "2026-01-02", { version: 2, supersedes: v1.id });
    await t.store.reports.insert(v2);
    expect(await t.store.reports.latestVersion(p, "2026-01-02")).toStrictEqual(stored(v2));
    expect(await t.store.reports.latestVersion(p, "2026-01-03")).toBeUndefined();
    expect(await t.store.reports.latestVersion(q, "2026-01-02")).toBeUndefined();
    expect(await t.store.reports.hasDay(p, "2026-01-02")).toBe(true);
    expect(await t.store.reports.hasDay(p, "2026-01-03")).toBe(false);
    expect(await t.store.reports.hasDay(q, "2026-01-02")).toBe(false);
    expect(await t.store.reports.report(randomUUID())).toBeUndefined();
    await expect(t.store.reports.insert(report(p, "2026-01-02", { version: 2 }))).rejects.toThrow();
  });

  it("lists every version without its bytes: newest day, highest version, then project id in byte order", async () => {
    const rows = [
      report(p, "2026-01-01"),
      report(q, "2026-01-02"),
      report(p, "2026-01-02", { content: Buffer.from("x") }),
      report(p, "2026-01-02", { version: 2 }),
      report(q, "2026-01-01", { version: 3 }),
    ];
    for (const row of rows) await t.store.reports.insert(row);
    const listed = await t.store.reports.list();
    expect(listed.map((r) => [r.reportDate, r.version, r.projectId])).toEqual([
      ["2026-01-02", 2, p],
      ["2026-01-02", 1, q],
      ["2026-01-02", 1, p],
      ["2026-01-01", 3, q],
      ["2026-01-01", 1, p],
    ]);
    expect(listed.every((r) => !("content" in r))).toBe(true);
    const { content: _, ...withoutBytes } = stored(rows[1] as NewAnhReportRow);
    expect(listed[1]).toStrictEqual(withoutBytes);
    expect((await t.store.reports.list([q])).map((r) => r.version)).toEqual([1, 3]);
    expect(await t.store.reports.list([])).toEqual([]);
  });

  it("lists a project's chain links of generated reports by generation time, then id", async () => {
    const link = (id: string, generatedAt: number, hash: string | null, previous: string | null) =>
      report(p, `2026-01-0${id.length}`, {
        id,
        version: Number(id.charCodeAt(0)),
        status: hash === null ? "pending" : "generated",
        hashSha384: hash,
        previousHashSha384: previous,
        generatedAt: hash === null ? null : at(generatedAt),
      });
    await t.store.reports.insert(link("b", 5, "hb", "ha"));
    await t.store.reports.insert(link("a", 1, "ha", null));
    await t.store.reports.insert(link("c", 5, "hc", "hb"));
    await t.store.reports.insert(link("d", 9, null, null));
    await t.store.reports.insert(report(q, "2026-01-01", { hashSha384: "hq", generatedAt: at(0) }));
    expect(await t.store.reports.chainLinks(p)).toStrictEqual([
      { hash: "ha", previous: null, generatedAt: at(1) },
      { hash: "hb", previous: "ha", generatedAt: at(5) },
      { hash: "hc", previous: "hb", generatedAt: at(5) },
    ]);
    expect(await t.store.reports.chainLinks(randomUUID())).toEqual([]);
  });

  it("lists the pending reports due by an instant: by period end, then project id, then day", async () => {
    const end = (day: string, hours: number) =>
      new Date(Date.parse(`${day}T00:00:00.000Z`) + hours * 3_600_000);
    await t.store.reports.insert(report(p, "2026-01-03", { periodEnd: end("2026-01-04", 5) }));
    await t.store.reports.insert(report(q, "2026-01-03", { periodEnd: end("2026-01-04", 5) }));
    await t.store.reports.insert(report(p, "2026-01-01", { periodEnd: end("2026-01-02", 5) }));
    await t.store.reports.insert(report(p, "2026-01-02", { periodEnd: end("2026-01-02", 5), version: 2 }));
    await t.store.reports.insert(report(p, "2026-01-05", { periodEnd: end("2026-01-06", 5) }));
    await t.store.reports.insert(
      report(q, "2026-01-01", { periodEnd: end("2026-01-02", 0), status: "generated" }),
    );
    expect(await t.store.reports.pendingDue(end("2026-01-04", 5))).toEqual([
      { projectId: p, reportDate: "2026-01-01" },
      { projectId: p, reportDate: "2026-01-02" },
      { projectId: q, reportDate: "2026-01-03" },
      { projectId: p, reportDate: "2026-01-03" },
    ]);
    expect(await t.store.reports.pendingDue(end("2026-01-02", 4))).toEqual([]);
  });

  it("updates the given columns and returns the row; undefined for a missing report", async () => {
    const user = await t.store.identity.insertUser(newUser());
    const row = report(p, "2026-01-02", { status: "generated", hashSha384: "h" });
    await t.store.reports.insert(row);
    const set = { status: "submitted" as const, submittedAt: at(7), submittedBy: user.id };
    expect(await t.store.reports.update(row.id, set)).toStrictEqual({ ...stored(row), ...set });
    expect(await t.store.reports.report(row.id)).toStrictEqual({ ...stored(row), ...set });
    expect(await t.store.reports.update(randomUUID(), set)).toBeUndefined();
  });
}
