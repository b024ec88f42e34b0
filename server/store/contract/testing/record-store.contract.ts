import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, expect, it } from "vitest";
import type { NewRecordRows, RecordListFilter } from "../../ports/record-store.ts";
import type { ContractBackend, StoreUnderTest } from "./backend.ts";
import { newAsset, newProject } from "./fixtures.ts";

const T0 = Date.parse("2025-06-01T05:00:00Z");
const minute = (n: number) => new Date(T0 + n * 60_000);
/** A UUID-shaped id whose byte order follows `n`. */
const idOf = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`;

/** The unique-constraint error of either engine (drizzle wraps PostgreSQL's as the cause). */
async function uniqueViolation(attempt: Promise<unknown>): Promise<string> {
  const error = await attempt.then(
    () => undefined,
    (e: unknown) => e,
  );
  const messages: string[] = [];
  for (let e = error; e instanceof Error; e = e.cause) messages.push(e.message);
  return messages.join(" <- ");
}
const UNIQUE = /UNIQUE constraint failed|duplicate key value violates unique constraint/;

/** RecordStore (server/store/ports/record-store.ts) on every backend. */
export function recordStoreContract(backend: ContractBackend): void {
  let t: StoreUnderTest;
  let a: string;
  let b: string;
  beforeEach(async () => {
    t = await backend.open();
    a = (await t.store.field.insertProject(newProject("A"))).id;
    b = (await t.store.field.insertProject(newProject("B"))).id;
  });
  afterEach(async () => {
    await t.close();
  });

  const movement = (
    projectId: string,
    minutes: number,
    over: Partial<NewRecordRows["movement"]> = {},
  ): NewRecordRows["movement"] => ({
    id: randomUUID(),
    projectId,
    createdAt: minute(0),
    movementType: "production",
    volumeBbls: 100.25,
    timestamp: minute(minutes),
    ...over,
  });
  const listedIds = async (filter: RecordListFilter) =>
    (await t.store.records.list("movement", filter)).map((r) => r.row.id);

  it("appends a row exactly as given and lists it back the same, current", async () => {
    const row = movement(a, 3, { notes: "tank 2", correctionReason: null, createdBy: null });
    const stored = await t.store.records.append("movement", row);
    expect(stored).toStrictEqual({ ...row, supersedes: null });
    expect(await t.store.records.list("movement", { limit: 10 })).toStrictEqual([
      { row: stored, supersededBy: null },
    ]);
  });

  it("lists by the kind's instant, then created_at, then id in byte order, all descending; limit keeps the newest", async () => {
    const rows = [
      movement(a, 1, { id: idOf(1) }),
      movement(a, 2, { id: idOf(2), createdAt: minute(5) }),
      movement(a, 2, { id: idOf(3), createdAt: minute(9) }),
      movement(a, 2, { id: idOf(0xa), createdAt: minute(9) }),
      movement(a, 2, { id: "Z-upper", createdAt: minute(9) }),
      movement(a, 2, { id: "a-lower", createdAt: minute(9) }),
      movement(a, 2, { id: idOf(4), createdAt: minute(9) }),
      movement(a, 7, { id: idOf(5) }),
    ];
    await t.store.transaction(async (tx) => {
      for (const row of rows) await tx.records.append("movement", row);
    });
    const newestFirst = [idOf(5), "a-lower", "Z-upper", idOf(0xa), idOf(4), idOf(3), idOf(2), idOf(1)];
    expect(await listedIds({ limit: 100 })).toEqual(newestFirst);
    expect(await listedIds({ limit: 3 })).toEqual(newestFirst.slice(0, 3));
  });

  it("filters by projects (none: every project; an empty list: nothing) and by [from, to)", async () => {
    const a1 = await t.store.records.append("movement", movement(a, 1));
    const a2 = await t.store.records.append("movement", movement(a, 2));
    const b1 = await t.store.records.append("movement", movement(b, 0));
    expect(await listedIds({ limit: 10 })).toEqual([a2.id, a1.id, b1.id]);
    expect(await listedIds({ projectIds: [b], limit: 10 })).toEqual([b1.id]);
    expect(await listedIds({ projectIds: [], limit: 10 })).toEqual([]);
    expect(await listedIds({ projectIds: [a], from: minute(2), limit: 10 })).toEqual([a2.id]);
    expect(await listedIds({ projectIds: [a], to: minute(2), limit: 10 })).toEqual([a1.id]);
    expect(await listedIds({ projectIds: [a], from: minute(1), to: minute(2), limit: 10 })).toEqual([a1.id]);
  });

  it("gives each listed record its successor, looked up among every record of the kind", async () => {
    const original = await t.store.records.append("movement", movement(a, 1));
    const correction = await t.store.records.append(
      "movement",
      movement(a, 9, { supersedes: original.id, correctionReason: "meter factor" }),
    );
    // The correction is outside the window: the original still names it.
    expect(await t.store.records.list("movement", { to: minute(5), limit: 10 })).toStrictEqual([
      { row: original, supersededBy: correction.id },
    ]);
    expect((await t.store.records.list("movement", { limit: 10 })).map((r) => r.supersededBy)).toEqual([
      null,
      correction.id,
    ]);
  });

  it("finds the successors of a long list", async () => {
    const n = 501;
    const originals = Array.from({ length: n }, (_, i) => movement(a, i));
    await t.store.transaction(async (tx) => {
      for (const row of originals) await tx.records.append("movement", row);
      for (const row of originals) {
        const fix = movement(a, -1, { supersedes: row.id, correctionReason: "fix" });
        await tx.records.append("movement", { ...fix, id: `fix-${row.id}` });
      }
    });
    const listed = await t.store.records.list("movement", { from: minute(0), limit: 10_000 });
    expect(listed).toHaveLength(n);
    expect(listed.every((r) => r.supersededBy === `fix-${r.row.id}`)).toBe(true);
  });

  it("correctionTarget: only a record of the same kind and project; with its successor once corrected", async () => {
    const target = await t.store.records.append("movement", movement(a, 1));
    expect(await t.store.records.correctionTarget("movement", target.id, a)).toEqual({ supersededBy: null });
    expect(await t.store.records.correctionTarget("movement", target.id, b)).toBeUndefined();
    expect(await t.store.records.correctionTarget("downtime", target.id, a)).toBeUndefined();
    expect(await t.store.records.correctionTarget("movement", randomUUID(), a)).toBeUndefined();
    const fix = await t.store.records.append(
      "movement",
      movement(a, 1, { supersedes: target.id, correctionReason: "fix" }),
    );
    expect(await t.store.records.correctionTarget("movement", target.id, a)).toEqual({
      supersededBy: fix.id,
    });
  });

  it("refuses a second correction of one record; a rolled-back append leaves nothing", async () => {
    const target = await t.store.records.append("movement", movement(a, 1));
    const fix = () => movement(a, 1, { supersedes: target.id, correctionReason: "fix" });
    await t.store.records.append("movement", fix());
    expect(await uniqueViolation(t.store.records.append("movement", fix()))).toMatch(UNIQUE);
    await expect(
      t.store.transaction(async (tx) => {
        await tx.records.append("movement", movement(b, 1));
        throw new Error("refused");
      }),
    ).rejects.toThrow("refused");
    expect(await listedIds({ projectIds: [b], limit: 10 })).toEqual([]);
  });

  it("lists each kind by its own instant, and reads every kind back as written", async () => {
    const base = { projectId: a, createdAt: minute(0) };
    const early = await t.store.records.append("downtime", {
      ...base,
      id: idOf(2),
      reason: "power",
      startedAt: minute(1),
      endedAt: minute(50),
    });
    const late = await t.store.records.append("downtime", {
      ...base,
      id: idOf(1),
      reason: "pump",
      startedAt: minute(2),
      endedAt: null,
    });
    expect((await t.store.records.list("downtime", { limit: 10 })).map((r) => r.row)).toStrictEqual([
      late,
      early,
    ]);
    expect(
      (await t.store.records.list("downtime", { from: minute(2), limit: 10 })).map((r) => r.row),
    ).toStrictEqual([late]);
    const well = newAsset(a, "W-1");
    const meter = { ...newAsset(a, "FT-101"), assetType: "meter" as const };
    await t.seed.assets([well, meter]);
    const test = {
      ...base,
      id: idOf(3),
      assetId: well.id,
      testDate: minute(3),
      oilRateBopd: 512.5,
      waterCutPct: 0.3,
    };
    const lab = {
      ...base,
      id: idOf(4),
      sampleDate: minute(4),
      apiGravity: 31.2,
      bswPct: 0.05,
      viscosityCp: null,
    };
    const reading = {
      ...base,
      id: idOf(5),
      meterId: meter.id,
      readingValue: 1e6 + 0.125,
      readAt: minute(5),
      unit: "bbl",
    };
    const stored = [
      await t.store.records.append("well_test", test),
      await t.store.records.append("lab_result", lab),
      await t.store.records.append("meter_reading", reading),
    ];
    expect([
      ...(await t.store.records.list("well_test", { limit: 10 })),
      ...(await t.store.records.list("lab_result", { limit: 10 })),
      ...(await t.store.records.list("meter_reading", { limit: 10 })),
    ]).toStrictEqual(stored.map((row) => ({ row, supersededBy: null })));
  });

  it("assetTypeIn: the asset's type when it is in the project", async () => {
    const meter = { ...newAsset(a, "FT-101"), assetType: "meter" as const };
    await t.seed.assets([meter]);
    expect(await t.store.records.assetTypeIn(a, meter.id)).toBe("meter");
    expect(await t.store.records.assetTypeIn(b, meter.id)).toBeUndefined();
    expect(await t.store.records.assetTypeIn(a, randomUUID())).toBeUndefined();
  });
}
