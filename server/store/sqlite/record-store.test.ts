import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { NewRecordRows } from "../ports/record-store.ts";
import type { Store } from "../store.ts";
import { type DatabaseHandle, openDatabase } from "./client.ts";
import { assets } from "./schema/index.ts";
import { SqliteStore } from "./sqlite-store.ts";

/*
 * The RecordStore port's contract (server/store/ports/record-store.ts), on a real database file.
 * The checks use only the Store type: the ordering and semantics every backend must keep.
 */

const T0 = Date.parse("2025-06-01T05:00:00Z");
const at = (minutes: number) => new Date(T0 + minutes * 60_000);
/** A UUID-shaped id whose byte order follows `n`. */
const idOf = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`;

describe("RecordStore on SQLite", () => {
  let dir: string;
  let handle: DatabaseHandle;
  let store: Store;
  let projectA: string;
  let projectB: string;

  const newProject = async () => {
    const now = new Date();
    const id = randomUUID();
    await store.field.insertProject({ id, name: id, slug: id, createdAt: now, updatedAt: now });
    return id;
  };

  const movement = (
    projectId: string,
    minutes: number,
    over: Partial<NewRecordRows["movement"]> = {},
  ): NewRecordRows["movement"] => ({
    id: randomUUID(),
    projectId,
    createdAt: at(0),
    movementType: "production",
    volumeBbls: 100,
    timestamp: at(minutes),
    ...over,
  });

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "caudal-records-"));
    handle = openDatabase(join(dir, "caudal.db"));
    store = new SqliteStore(handle);
    projectA = await newProject();
    projectB = await newProject();
  });
  afterEach(() => {
    handle.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const listedIds = async (filter: Parameters<Store["records"]["list"]>[1]) =>
    (await store.records.list("movement", filter)).map((r) => r.row.id);

  it("append stores the row exactly as given and returns it", async () => {
    const row = movement(projectA, 3, { notes: "tank 2", correctionReason: null, createdBy: null });
    const stored = await store.records.append("movement", row);
    expect(stored).toEqual({ ...row, supersedes: null });
    const [listed] = await store.records.list("movement", { limit: 10 });
    expect(listed).toEqual({ row: stored, supersededBy: null });
  });

  it("lists by the kind's instant, then created_at, then id, all descending; limit keeps the newest", async () => {
    const rows = [
      movement(projectA, 1, { id: idOf(1) }),
      movement(projectA, 2, { id: idOf(2), createdAt: at(5) }),
      movement(projectA, 2, { id: idOf(3), createdAt: at(9) }),
      movement(projectA, 2, { id: idOf(0xa), createdAt: at(9) }),
      movement(projectA, 2, { id: idOf(4), createdAt: at(9) }),
      movement(projectA, 7, { id: idOf(5) }),
    ];
    await store.transaction(async (tx) => {
      for (const row of rows) await tx.records.append("movement", row);
    });
    const newestFirst = [idOf(5), idOf(0xa), idOf(4), idOf(3), idOf(2), idOf(1)];
    expect(await listedIds({ limit: 100 })).toEqual(newestFirst);
    expect(await listedIds({ limit: 3 })).toEqual(newestFirst.slice(0, 3));
  });

  it("filters by projects (none: every project; an empty list: nothing) and by [from, to)", async () => {
    const a1 = await store.records.append("movement", movement(projectA, 1));
    const a2 = await store.records.append("movement", movement(projectA, 2));
    const b1 = await store.records.append("movement", movement(projectB, 0));
    expect(await listedIds({ limit: 10 })).toEqual([a2.id, a1.id, b1.id]);
    expect(await listedIds({ projectIds: [projectB], limit: 10 })).toEqual([b1.id]);
    expect(await listedIds({ projectIds: [], limit: 10 })).toEqual([]);
    expect(await listedIds({ projectIds: [projectA], from: at(2), limit: 10 })).toEqual([a2.id]);
    expect(await listedIds({ projectIds: [projectA], to: at(2), limit: 10 })).toEqual([a1.id]);
    expect(await listedIds({ projectIds: [projectA], from: at(1), to: at(2), limit: 10 })).toEqual([a1.id]);
  });

  it("gives each listed record its successor, looked up among every record of the kind", async () => {
    const original = await store.records.append("movement", movement(projectA, 1));
    // The correction falls outside the window listed below: the original still names it.
    const correction = await store.records.append(
      "movement",
      movement(projectA, 9, { supersedes: original.id, correctionReason: "meter factor" }),
    );
    expect(await store.records.list("movement", { to: at(5), limit: 10 })).toEqual([
      { row: original, supersededBy: correction.id },
    ]);
    expect((await store.records.list("movement", { limit: 10 })).map((r) => r.supersededBy)).toEqual([
      null,
      correction.id,
    ]);
  });

  it("finds the successors of lists longer than one IN chunk", async () => {
    const n = 501;
    const originals = Array.from({ length: n }, (_, i) => movement(projectA, i));
    await store.transaction(async (tx) => {
      for (const row of originals) await tx.records.append("movement", row);
      for (const row of originals) {
        const fix = movement(projectA, -1, { supersedes: row.id, correctionReason: "fix" });
        await tx.records.append("movement", { ...fix, id: `fix-${row.id}` });
      }
    });
    const listed = await store.records.list("movement", { from: at(0), limit: 10_000 });
    expect(listed).toHaveLength(n);
    expect(listed.every((r) => r.supersededBy === `fix-${r.row.id}`)).toBe(true);
  });

  it("correctionTarget: only a record of the same kind and project; with its successor once corrected", async () => {
    const target = await store.records.append("movement", movement(projectA, 1));
    expect(await store.records.correctionTarget("movement", target.id, projectA)).toEqual({
      supersededBy: null,
    });
    expect(await store.records.correctionTarget("movement", target.id, projectB)).toBeUndefined();
    expect(await store.records.correctionTarget("downtime", target.id, projectA)).toBeUndefined();
    expect(await store.records.correctionTarget("movement", randomUUID(), projectA)).toBeUndefined();
    const fix = await store.records.append(
      "movement",
      movement(projectA, 1, { supersedes: target.id, correctionReason: "fix" }),
    );
    expect(await store.records.correctionTarget("movement", target.id, projectA)).toEqual({
      supersededBy: fix.id,
    });
  });

  it("refuses a second correction of one record, and a rolled-back append leaves nothing", async () => {
    const target = await store.records.append("movement", movement(projectA, 1));
    const fix = () => movement(projectA, 1, { supersedes: target.id, correctionReason: "fix" });
    await store.records.append("movement", fix());
    await expect(store.records.append("movement", fix())).rejects.toThrow(/UNIQUE/);
    await expect(
      store.transaction(async (tx) => {
        await tx.records.append("movement", movement(projectB, 1));
        throw new Error("refused");
      }),
    ).rejects.toThrow("refused");
    expect(await listedIds({ projectIds: [projectB], limit: 10 })).toEqual([]);
  });

  it("each kind lists by its own instant", async () => {
    const base = { projectId: projectA, createdAt: at(0) };
    const early = await store.records.append("downtime", {
      ...base,
      id: idOf(2),
      reason: "power",
      startedAt: at(1),
      endedAt: at(50),
    });
    const late = await store.records.append("downtime", {
      ...base,
      id: idOf(1),
      reason: "pump",
      startedAt: at(2),
      endedAt: null,
    });
    expect((await store.records.list("downtime", { limit: 10 })).map((r) => r.row)).toEqual([late, early]);
    expect((await store.records.list("downtime", { from: at(2), limit: 10 })).map((r) => r.row)).toEqual([
      late,
    ]);
  });

  it("assetTypeIn: the asset's type when it is in the project", async () => {
    const now = new Date();
    const meter = randomUUID();
    handle.db
      .insert(assets)
      .values({
        id: meter,
        projectId: projectA,
        name: "FT-101",
        assetType: "meter",
        createdAt: now,
        updatedAt: now,
      })
      .run();
    expect(await store.records.assetTypeIn(projectA, meter)).toBe("meter");
    expect(await store.records.assetTypeIn(projectB, meter)).toBeUndefined();
    expect(await store.records.assetTypeIn(projectA, randomUUID())).toBeUndefined();
  });
});
