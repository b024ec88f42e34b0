import { randomUUID } from "node:crypto";
import type { Sqlite } from "../../db/client.ts";

type Column = { name: string; type: string; notnull: number; dflt_value: unknown; pk: number };
type ForeignKey = { table: string; from: string; to: string };

function columnsOf(sqlite: Sqlite, table: string): Column[] {
  return sqlite.prepare(`PRAGMA table_info("${table}")`).all() as Column[];
}

function foreignKeysOf(sqlite: Sqlite, table: string): ForeignKey[] {
  return sqlite.prepare(`PRAGMA foreign_key_list("${table}")`).all() as ForeignKey[];
}

function userTables(sqlite: Sqlite): string[] {
  const rows = sqlite
    .prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '__drizzle%'",
    )
    .all() as { name: string }[];
  return rows.map((r) => r.name);
}

function filler(column: Column): unknown {
  const type = column.type.toLowerCase();
  if (type.includes("int")) return Date.now();
  if (type.includes("real")) return 1.5;
  if (type.includes("blob")) return Buffer.from([0]);
  return column.pk ? randomUUID() : `x-${randomUUID().slice(0, 8)}`;
}

/**
 * Inserts one row into every table that hangs off the field model (directly or through another
 * such row), whatever the schema holds today: a table added later is covered without editing
 * this test. Returns the tables it filled, each with the primary-key values of the row.
 */
export function seedDependents(
  sqlite: Sqlite,
  refs: { projectId: string; assetId: string; deviceId: string; variableId: string; userId: string },
  /** Tables not to seed. */
  skip: ReadonlySet<string> = new Set(),
): Map<string, Record<string, unknown>> {
  const inserted = new Map<string, Record<string, unknown>>([
    ["projects", { id: refs.projectId }],
    ["assets", { id: refs.assetId }],
    ["devices", { id: refs.deviceId }],
    ["variables", { id: refs.variableId }],
    ["users", { id: refs.userId }],
  ]);
  const pending = userTables(sqlite).filter(
    (t) => !inserted.has(t) && !skip.has(t) && foreignKeysOf(sqlite, t).length > 0,
  );
  let progress = true;
  while (progress) {
    progress = false;
    for (const table of [...pending]) {
      const fks = foreignKeysOf(sqlite, table);
      if (!fks.some((fk) => inserted.has(fk.table) && fk.table !== "users")) continue;
      if (fks.some((fk) => !inserted.has(fk.table))) continue;
      const columns = columnsOf(sqlite, table);
      // A single INTEGER PRIMARY KEY is the rowid: SQLite assigns it.
      const pk = columns.filter((c) => c.pk > 0);
      const rowid = pk.length === 1 && pk[0]?.type === "INTEGER" ? pk[0].name : null;
      const row: Record<string, unknown> = {};
      for (const column of columns) {
        const fk = fks.find((f) => f.from === column.name);
        if (fk) row[column.name] = inserted.get(fk.table)?.[fk.to];
        else if (column.notnull && column.dflt_value === null && column.name !== rowid)
          row[column.name] = filler(column);
      }
      const names = Object.keys(row);
      // A row the project already has (its subscription, made with it) stays as it is.
      const result = sqlite
        .prepare(
          `INSERT INTO "${table}" (${names.map((n) => `"${n}"`).join(", ")}) VALUES (${names.map(() => "?").join(", ")}) ON CONFLICT DO NOTHING`,
        )
        .run(...names.map((n) => row[n]));
      const keys: Record<string, unknown> = {};
      for (const c of pk) keys[c.name] = c.name === rowid ? result.lastInsertRowid : row[c.name];
      inserted.set(table, keys);
      pending.splice(pending.indexOf(table), 1);
      progress = true;
    }
  }
  for (const table of ["projects", "assets", "devices", "variables", "users"]) inserted.delete(table);
  return inserted;
}

/** Telemetry raw rows, packed blocks and rollups carry no foreign key: a trigger on telemetry_series removes them. */
export function seedTelemetry(sqlite: Sqlite, seriesId: unknown): void {
  const now = Date.now();
  sqlite
    .prepare("INSERT INTO telemetry_raw (series_id, ts, value) VALUES (?, ?, 1), (?, ?, 2)")
    .run(seriesId, now, seriesId, now + 1000);
  sqlite
    .prepare(
      "INSERT INTO telemetry_packed (series_id, first_ts, last_ts, count, data) VALUES (?, ?, ?, 1, ?)",
    )
    .run(seriesId, now - 1000, now - 1000, Buffer.from([0]));
  for (const table of ["telemetry_rollup_5m", "telemetry_rollup_1h"]) {
    sqlite
      .prepare(`INSERT INTO ${table} (series_id, bucket, count, sum, min, max) VALUES (?, ?, 2, 3, 1, 2)`)
      .run(seriesId, now);
  }
}

/** How many rows of each seeded table (and of the telemetry tables for `seriesId`) still exist. */
export function remaining(sqlite: Sqlite, seeded: Map<string, Record<string, unknown>>, seriesId: unknown) {
  const counts: Record<string, number> = {};
  for (const [table, keys] of seeded) {
    const names = Object.keys(keys);
    const where = names.map((n) => `"${n}" = ?`).join(" AND ");
    const row = sqlite
      .prepare(`SELECT count(*) AS n FROM "${table}" WHERE ${where}`)
      .get(...names.map((n) => keys[n])) as {
      n: number;
    };
    counts[table] = row.n;
  }
  for (const table of ["telemetry_raw", "telemetry_packed", "telemetry_rollup_5m", "telemetry_rollup_1h"]) {
    const row = sqlite.prepare(`SELECT count(*) AS n FROM ${table} WHERE series_id = ?`).get(seriesId) as {
      n: number;
    };
    counts[table] = row.n;
  }
  return counts;
}

export function fieldRowCounts(
  sqlite: Sqlite,
  ids: { projectId: string; assetId: string; deviceId: string; variableId: string },
) {
  const count = (table: string, id: string) =>
    (sqlite.prepare(`SELECT count(*) AS n FROM ${table} WHERE id = ?`).get(id) as { n: number }).n;
  return {
    projects: count("projects", ids.projectId),
    assets: count("assets", ids.assetId),
    devices: count("devices", ids.deviceId),
    variables: count("variables", ids.variableId),
  };
}
