import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresMissing, startPostgres, type TestPostgres } from "../../scripts/testing/postgres.ts";
import { requirePeer } from "../../scripts/testing/require-peer.ts";
import { auditEntry, newAsset, newProject } from "../store/contract/testing/fixtures.ts";
import { PostgresStore } from "../store/postgres/postgres-store.ts";
import { openDatabase } from "../store/sqlite/client.ts";
import { SqliteStore } from "../store/sqlite/sqlite-store.ts";
import type { Store } from "../store/store.ts";
import { dollarPlaceholders, storeProbe } from "./table-probe.ts";

type Opened = { store: Store; close(): Promise<void> };

/** The same expectations on each engine: what a test reads through the probe does not depend on it. */
function probeContract(open: () => Promise<Opened>): void {
  let db: Opened;
  beforeAll(async () => {
    db = await open();
  });
  afterAll(async () => db?.close());

  it("counts and reads rows by equality, values as SQLite reads them", async () => {
    const probe = storeProbe(db.store);
    const project = newProject("Probe", { autoDeploy: true, isActive: true });
    await db.store.field.insertProject(project);
    for (const n of [1, 2, 3])
      await db.store.audit.append(auditEntry(n, { entityId: n === 2 ? "two" : "e" }));
    expect(await probe.count("audit_log")).toBe(3);
    expect(await probe.count("audit_log", { entity_id: "e", action: "update" })).toBe(2);
    expect(await probe.count("audit_log", { entity_id: "none" })).toBe(0);
    const rows = await probe.rows<{ seq: number; at: number; after: string }>(
      "audit_log",
      { entity_id: "e" },
      "seq",
    );
    expect(rows.map((r) => [r.seq, r.at])).toEqual([
      [1, auditEntry(1).at.getTime()],
      [3, auditEntry(3).at.getTime()],
    ]);
    expect(rows[0]?.after).toBe(JSON.stringify(auditEntry(1).after));
    const [stored] = await probe.rows("projects", { id: project.id });
    expect(stored).toMatchObject({
      id: project.id,
      auto_deploy: 1,
      is_active: 1,
      created_at: project.createdAt.getTime(),
    });
  });

  it("runs statements with ? placeholders (not those inside quotes); Dates and booleans go in as the server writes them", async () => {
    const probe = storeProbe(db.store);
    const project = newProject("Flags", { autoDeploy: false });
    await db.store.field.insertProject(project);
    const asset = newAsset(project.id, "well");
    await db.store.field.insertAsset(asset);
    const later = new Date(project.createdAt.getTime() + 5);
    expect(
      await probe.run("UPDATE projects SET auto_deploy = ?, updated_at = ?, description = '?' WHERE id = ?", [
        true,
        later,
        project.id,
      ]),
    ).toBe(1);
    expect(await db.store.field.project(project.id)).toMatchObject({
      autoDeploy: true,
      updatedAt: later,
      description: "?",
    });
    const [inserted] = await probe.query<{ id: number }>(
      "INSERT INTO telemetry_series (project_id, asset_id, variable) VALUES (?, ?, ?) RETURNING id",
      [project.id, asset.id, "p"],
    );
    expect(typeof inserted?.id).toBe("number");
    expect(
      await probe.query("SELECT count(*) AS n, sum(id) AS s FROM telemetry_series WHERE project_id = ?", [
        project.id,
      ]),
    ).toEqual([{ n: 1, s: inserted?.id }]);
  });

  it("the append-only guards refuse a change until withoutTriggers lifts them, and are back after, even when the work fails", async () => {
    const probe = storeProbe(db.store);
    const [first] = await probe.rows<{ seq: number; after: string }>("audit_log", {}, "seq");
    if (!first) throw new Error("no audit entry");
    const edit = () => probe.run("UPDATE audit_log SET after = ? WHERE seq = ?", ['{"forged":1}', first.seq]);
    await expect(edit()).rejects.toThrow(/append-only/);
    await probe.withoutTriggers("audit_log", async () => expect(await edit()).toBe(1));
    await expect(edit()).rejects.toThrow(/append-only/);
    await expect(
      probe.withoutTriggers("audit_log", async () => {
        throw new Error("work failed");
      }),
    ).rejects.toThrow("work failed");
    await expect(probe.run("DELETE FROM audit_log WHERE seq = ?", [first.seq])).rejects.toThrow(
      /append-only/,
    );
    expect(await probe.count("audit_log", { after: '{"forged":1}' })).toBe(1);
  });

  it("describes the schema: tables, columns and foreign keys", async () => {
    const probe = storeProbe(db.store);
    const tables = await probe.tables();
    expect(tables).toEqual(
      expect.arrayContaining(["audit_log", "projects", "telemetry_raw", "telemetry_series"]),
    );
    expect(
      tables.filter((name) => name.startsWith("__drizzle") || name.startsWith("telemetry_raw_")),
    ).toEqual([]);
    const columns = await probe.columns("telemetry_series");
    expect(columns.slice(0, 3)).toEqual([
      { name: "id", type: "integer", notNull: true, hasDefault: true, primaryKey: 1 },
      { name: "project_id", type: "text", notNull: true, hasDefault: false, primaryKey: 0 },
      { name: "asset_id", type: "text", notNull: true, hasDefault: false, primaryKey: 0 },
    ]);
    expect(columns.find((c) => c.name === "last_value")).toMatchObject({ type: "real", notNull: false });
    expect(await probe.foreignKeys("telemetry_series")).toEqual(
      expect.arrayContaining([
        { table: "projects", from: "project_id", to: "id" },
        { table: "assets", from: "asset_id", to: "id" },
      ]),
    );
    expect(await probe.foreignKeys("projects")).toEqual([]);
  });

  it("loseDatabase cuts the store off: its probe fails from then on", async () => {
    await db.store.probe();
    await storeProbe(db.store).loseDatabase();
    await expect(db.store.probe()).rejects.toThrow();
  });
}

describe("dollarPlaceholders", () => {
  it("numbers each ? outside quoted strings and identifiers", () => {
    expect(dollarPlaceholders(`SELECT '?', "a?" FROM t WHERE a = ? AND b = '?''?' AND c = ?`)).toBe(
      `SELECT '?', "a?" FROM t WHERE a = $1 AND b = '?''?' AND c = $2`,
    );
  });
});

describe("table probe on SQLite", () => {
  probeContract(async () => {
    const dir = mkdtempSync(join(tmpdir(), "caudal-probe-"));
    const handle = openDatabase(join(dir, "caudal.db"));
    return {
      store: new SqliteStore(handle),
      async close() {
        handle.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  });
});

const postgres = requirePeer("postgresql-15", postgresMissing);

postgres.describe("table probe on PostgreSQL", () => {
  let instance: TestPostgres;
  probeContract(async () => {
    instance = await startPostgres();
    const store = await PostgresStore.open(instance.url);
    return {
      store,
      async close() {
        await store.close();
        await instance.stop();
      },
    };
  });
});
