import { randomUUID } from "node:crypto";
import { eq, is } from "drizzle-orm";
import { getTableConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Pool } from "pg";
import { afterAll, beforeAll, expect } from "vitest";
import { postgresMissing, startPostgres, type TestPostgres } from "../../../scripts/testing/postgres.ts";
import { requirePeer } from "../../../scripts/testing/require-peer.ts";
import { openDatabase } from "../sqlite/client.ts";
import * as sqliteSchema from "../sqlite/schema/index.ts";
import { connectPool, openPostgres, type PostgresHandle } from "./client.ts";
import * as pgSchema from "./schema/index.ts";

const postgres = requirePeer("postgresql-15", postgresMissing);

/** What PostgreSQL has beyond the SQLite schema, and why (see the schema files). */
const PG_ONLY_TABLES = ["audit_log_head"]; // sqlite_sequence's audit_log row
const PG_ONLY_COLUMNS = [
  "alarm_events.write_seq", // SQLite's rowid, for the history's tie-break
  "telemetry_series.rolled_to", // the roll-up watermark SQLite's writer keeps in memory
];
/** SQLite finds the oldest agent batch records by rowid (arrival order), PostgreSQL by this BRIN index. */
const PG_ONLY_INDEXES = ["agent_batches_received_at_brin"];

// Compile-time: every table reads back as the same row type on both backends.
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Row<T> = T extends { $inferSelect: infer R } ? R : never;
type PgRow<K extends keyof typeof pgSchema> = K extends "alarmEvents"
  ? Omit<Row<(typeof pgSchema)[K]>, "writeSeq">
  : K extends "telemetrySeries"
    ? Omit<Row<(typeof pgSchema)[K]>, "rolledTo">
    : Row<(typeof pgSchema)[K]>;
type RowMismatch = {
  [K in keyof typeof sqliteSchema]: K extends keyof typeof pgSchema
    ? Same<Row<(typeof sqliteSchema)[K]>, PgRow<K>> extends true
      ? never
      : K
    : K;
}[keyof typeof sqliteSchema];
const sameRowTypes: [RowMismatch] extends [never] ? true : RowMismatch = true;

type Column = { table: string; name: string; type: string; notNull: boolean; pk: boolean };
/** One line per column, for a readable diff. */
const describeColumn = (c: Column) =>
  `${c.table}.${c.name} ${c.type}${c.notNull ? " not null" : ""}${c.pk ? " primary key" : ""}`;

function sqliteShape() {
  const handle = openDatabase(":memory:");
  try {
    const tables = handle.sqlite
      .prepare<[], { name: string }>(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '__drizzle%' ORDER BY name",
      )
      .all()
      .map((t) => t.name);
    const booleans = new Set(
      Object.values(sqliteSchema)
        .flatMap((v) => (is(v, SQLiteTable) ? [getTableConfig(v)] : []))
        .flatMap((t) =>
          t.columns.filter((c) => c.columnType === "SQLiteBoolean").map((c) => `${t.name}.${c.name}`),
        ),
    );
    const columns: Column[] = [];
    const indexes: string[] = [];
    const foreignKeys: string[] = [];
    for (const table of tables) {
      const info = handle.sqlite
        .prepare<[], { name: string; type: string; notnull: number; pk: number }>(
          `PRAGMA table_info(${table})`,
        )
        .all();
      for (const c of info) {
        // SQLite's type names, and what each must be on PostgreSQL.
        const declared = c.type.toLowerCase();
        const type =
          declared === "integer"
            ? booleans.has(`${table}.${c.name}`)
              ? "boolean"
              : "bigint"
            : ({ real: "double precision", text: "text", blob: "bytea" }[declared] ?? `? ${declared}`);
        columns.push({ table, name: c.name, type, notNull: c.notnull === 1 || c.pk > 0, pk: c.pk > 0 });
      }
      for (const i of handle.sqlite
        .prepare<[], { name: string; unique: number; origin: string }>(`PRAGMA index_list(${table})`)
        .all()) {
        // Unnamed (sqlite_autoindex_…) indexes back a PRIMARY KEY: compared with the columns.
        if (i.origin !== "pk") indexes.push(`${i.name}${i.unique ? " unique" : ""}`);
      }
      for (const f of handle.sqlite
        .prepare<[], { from: string; table: string; to: string; on_delete: string }>(
          `PRAGMA foreign_key_list(${table})`,
        )
        .all()) {
        foreignKeys.push(`${table}.${f.from} → ${f.table}.${f.to} on delete ${f.on_delete.toLowerCase()}`);
      }
    }
    return { tables, columns, indexes: indexes.sort(), foreignKeys: foreignKeys.sort() };
  } finally {
    handle.close();
  }
}

async function postgresShape(pool: Pool) {
  // Partitions of telemetry_raw are tables too: only the tables the schema declares count.
  const tables = (
    await pool.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition ORDER BY 1`,
    )
  ).rows.map((r) => r.name);
  const columns = (
    await pool.query<Column>(
      `SELECT c.table_name AS table, c.column_name AS name, c.data_type AS type, c.is_nullable = 'NO' AS "notNull",
              EXISTS (SELECT 1 FROM information_schema.key_column_usage k
                        JOIN information_schema.table_constraints t USING (constraint_schema, constraint_name)
                       WHERE t.constraint_type = 'PRIMARY KEY' AND k.table_name = c.table_name
                         AND k.column_name = c.column_name) AS pk
         FROM information_schema.columns c
        WHERE c.table_schema = 'public' AND c.table_name = ANY($1)`,
      [tables],
    )
  ).rows;
  const indexes = (
    await pool.query<{ name: string }>(
      `SELECT i.relname || CASE WHEN x.indisunique THEN ' unique' ELSE '' END AS name
         FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
        WHERE t.relname = ANY($1) AND NOT x.indisprimary`,
      [tables],
    )
  ).rows.map((r) => r.name);
  const foreignKeys = (
    await pool.query<{ fk: string }>(
      `SELECT t.relname || '.' || a.attname || ' → ' || r.relname || '.' || ra.attname || ' on delete ' ||
              CASE c.confdeltype WHEN 'c' THEN 'cascade' WHEN 'n' THEN 'set null' WHEN 'a' THEN 'no action' END AS fk
         FROM pg_constraint c
         JOIN pg_class t ON t.oid = c.conrelid JOIN pg_class r ON r.oid = c.confrelid
         JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
         JOIN pg_attribute ra ON ra.attrelid = c.confrelid AND ra.attnum = c.confkey[1]
        WHERE c.contype = 'f' AND t.relname = ANY($1)`,
      [tables],
    )
  ).rows.map((r) => r.fk);
  return { tables, columns, indexes: indexes.sort(), foreignKeys: foreignKeys.sort() };
}

postgres.describe("PostgreSQL schema and migrations (server/store/postgres)", () => {
  let instance: TestPostgres;
  let handle: PostgresHandle;
  let pool: Pool;

  beforeAll(async () => {
    instance = await startPostgres();
    handle = await openPostgres(instance.url);
    pool = handle.pool;
  });
  afterAll(async () => {
    await handle?.close();
    await instance?.stop();
  });

  /** A project with a well, a meter and a user of its own. */
  async function seedProject() {
    const { db } = handle;
    const at = new Date();
    const [projectId, wellId, meterId, userId] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    await db
      .insert(pgSchema.projects)
      .values({ id: projectId, name: "P", slug: projectId, createdAt: at, updatedAt: at });
    await db.insert(pgSchema.assets).values([
      { id: wellId, projectId, name: "W-1", assetType: "well", createdAt: at, updatedAt: at },
      { id: meterId, projectId, name: "M-1", assetType: "meter", createdAt: at, updatedAt: at },
    ]);
    await db.insert(pgSchema.users).values({
      id: userId,
      email: `${userId}@example.com`,
      name: "U",
      role: "operador",
      passwordHash: "x",
      createdAt: at,
      updatedAt: at,
    });
    return { projectId, wellId, meterId, userId };
  }

  const count = async (sql: string, params: unknown[]) =>
    Number((await pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${sql}`, params)).rows[0]?.n);

  postgres.it(
    "has every SQLite table, column, index and foreign key, with types that read back the same",
    async () => {
      expect(sameRowTypes).toBe(true);
      const lite = sqliteShape();
      const pg = await postgresShape(pool);
      expect(pg.tables).toEqual([...lite.tables, ...PG_ONLY_TABLES].sort());
      const pgColumns = pg.columns.filter(
        (c) => !PG_ONLY_TABLES.includes(c.table) && !PG_ONLY_COLUMNS.includes(`${c.table}.${c.name}`),
      );
      expect(pgColumns.map(describeColumn).sort()).toEqual(lite.columns.map(describeColumn).sort());
      expect(
        pg.indexes.filter((i) => !i.startsWith("audit_log_head") && !PG_ONLY_INDEXES.includes(i)),
      ).toEqual(lite.indexes);
      expect(pg.foreignKeys).toEqual(lite.foreignKeys);
      // Applying the migrations again changes nothing.
      const again = await openPostgres(instance.url);
      await again.close();
      expect((await postgresShape(pool)).columns.length).toBe(pg.columns.length);
    },
  );

  postgres.it(
    "reads back what it was given: instants as Date, JSON as its exact text, bytes as bytes",
    async () => {
      const { db } = handle;
      const { projectId } = await seedProject();
      const config = { z: 1, a: [1.5, "ü"], n: null };
      const content = Buffer.from([0, 255, 1, 128, 0x7b]);
      const at = new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 678));
      await db.insert(pgSchema.deployments).values({
        id: "dep-1",
        projectId,
        version: 2 ** 40,
        configHash: "h",
        config,
        status: "pending",
        createdAt: at,
        updatedAt: at,
      });
      await db.insert(pgSchema.anhReports).values({
        id: "rep-1",
        projectId,
        reportDate: "2026-01-02",
        periodStart: at,
        periodEnd: at,
        status: "generated",
        content,
        createdAt: at,
      });
      const [dep] = await db.select().from(pgSchema.deployments).where(eq(pgSchema.deployments.id, "dep-1"));
      expect(dep).toMatchObject({ version: 2 ** 40, config, createdAt: at });
      const [rep] = await db.select().from(pgSchema.anhReports).where(eq(pgSchema.anhReports.id, "rep-1"));
      expect(rep?.content?.equals(content)).toBe(true);
      // Stored as SQLite stores it: JSON.stringify's text, epoch milliseconds.
      const raw = await pool.query(
        "SELECT config, created_at::text AS ms FROM deployments WHERE id = 'dep-1'",
      );
      expect(raw.rows[0]).toEqual({ config: JSON.stringify(config), ms: String(at.getTime()) });
    },
  );

  postgres.it("refuses a database that would not sort text byte by byte", async () => {
    await pool.query("CREATE DATABASE ascii_db ENCODING 'SQL_ASCII' LOCALE 'C' TEMPLATE template0");
    const url = instance.url.replace(/\/postgres$/, "/ascii_db");
    await expect(openPostgres(url)).rejects.toThrow(/needs a UTF8 database with the C locale/);
    const other = connectPool(url, { max: 1 });
    try {
      // Nothing half-applied: the migrations run in one transaction.
      const { rows } = await other.query("SELECT to_regclass('public.projects') AS t");
      expect(rows[0]).toEqual({ t: null });
    } finally {
      await other.end();
    }
  });

  postgres.it("records refuse UPDATE, DELETE and TRUNCATE, yet go with their asset or project", async () => {
    const { db } = handle;
    const { projectId, wellId, meterId, userId } = await seedProject();
    const at = new Date();
    const base = () => ({ id: randomUUID(), projectId, createdBy: userId, createdAt: at });
    const rows = {
      movements: { ...base(), movementType: "production" as const, volumeBbls: 10, timestamp: at },
      downtime: { ...base(), reason: "pump", startedAt: at },
      well_tests: { ...base(), assetId: wellId, testDate: at, oilRateBopd: 1 },
      lab_results: { ...base(), sampleDate: at, apiGravity: 30 },
      meter_readings: { ...base(), meterId, readingValue: 5, readAt: at },
    };
    await db.insert(pgSchema.movements).values(rows.movements);
    await db.insert(pgSchema.downtime).values(rows.downtime);
    await db.insert(pgSchema.wellTests).values(rows.well_tests);
    await db.insert(pgSchema.labResults).values(rows.lab_results);
    await db.insert(pgSchema.meterReadings).values(rows.meter_readings);
    for (const [table, row] of Object.entries(rows)) {
      const refused = `${table}: records are append-only; post a correction that supersedes the record`;
      await expect(
        pool.query(`UPDATE ${table} SET correction_reason = 'edit' WHERE id = $1`, [row.id]),
      ).rejects.toThrow(refused);
      await expect(pool.query(`UPDATE ${table} SET created_at = 0 WHERE id = $1`, [row.id])).rejects.toThrow(
        refused,
      );
      await expect(pool.query(`DELETE FROM ${table} WHERE id = $1`, [row.id])).rejects.toThrow(refused);
      await expect(pool.query(`TRUNCATE ${table} CASCADE`)).rejects.toThrow(refused);
    }
    // created_by may still become null when its user is removed (ON DELETE SET NULL).
    await pool.query("DELETE FROM users WHERE id = $1", [userId]);
    for (const table of Object.keys(rows)) {
      expect(await count(`${table} WHERE project_id = $1 AND created_by IS NULL`, [projectId])).toBe(1);
    }
    // Well tests and meter readings go with their asset, by the foreign-key cascade.
    await pool.query("DELETE FROM assets WHERE id = ANY($1)", [[wellId, meterId]]);
    expect(await count("well_tests WHERE project_id = $1", [projectId])).toBe(0);
    expect(await count("meter_readings WHERE project_id = $1", [projectId])).toBe(0);
    expect(await count("movements WHERE project_id = $1", [projectId])).toBe(1);
    // Every record goes with its project.
    await pool.query("DELETE FROM projects WHERE id = $1", [projectId]);
    for (const table of Object.keys(rows))
      expect(await count(`${table} WHERE project_id = $1`, [projectId])).toBe(0);
  });

  postgres.it(
    "the audit log takes only the next seq, gap-free, and refuses UPDATE, DELETE and TRUNCATE",
    async () => {
      const { projectId } = await seedProject();
      const append = async (client: Pool | import("pg").PoolClient, seq: number) =>
        client.query(
          `INSERT INTO audit_log (seq, id, at, project_id, entity, entity_id, action, prev_hash, hash)
         VALUES ($1, $2, 0, $3, 'project', $3, 'create', '', 'h')`,
          [seq, randomUUID(), projectId],
        );
      const head = async () => Number((await pool.query("SELECT seq FROM audit_log_head")).rows[0]?.seq);
      const first = (await head()) + 1;
      await append(pool, first);
      await expect(append(pool, first)).rejects.toThrow(
        `seq ${first} does not follow the last seq issued, ${first}`,
      );
      await expect(append(pool, first + 2)).rejects.toThrow("does not follow");
      // A rolled-back append spends no seq (as AUTOINCREMENT on SQLite): the next one fills it.
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        await client.query("SELECT seq FROM audit_log_head FOR UPDATE");
        await append(client, first + 1);
        await client.query("ROLLBACK");
      } finally {
        client.release();
      }
      expect(await head()).toBe(first);
      await append(pool, first + 1);
      expect(await head()).toBe(first + 1);

      await expect(
        pool.query("UPDATE audit_log SET hash = 'forged' WHERE seq = $1", [first]),
      ).rejects.toThrow("audit_log is append-only");
      await expect(pool.query("DELETE FROM audit_log WHERE seq = $1", [first])).rejects.toThrow(
        "audit_log is append-only",
      );
      await expect(pool.query("TRUNCATE audit_log")).rejects.toThrow("audit_log is append-only");
      // Entries outlive their project, as on SQLite (no foreign key).
      await pool.query("DELETE FROM projects WHERE id = $1", [projectId]);
      expect(await count("audit_log WHERE project_id = $1", [projectId])).toBe(2);
    },
  );

  postgres.it(
    "telemetry lands in its UTC day's partition, goes with its series, and retention drops whole days",
    async () => {
      const { db } = handle;
      const DAY = 86_400_000;
      const day0 = Date.UTC(2030, 2, 1);
      const ensure = async (from: number, to: number) =>
        Number(
          (await pool.query("SELECT caudal_ensure_telemetry_partitions($1, $2) AS n", [from, to])).rows[0]?.n,
        );
      expect(await ensure(day0 + 5, day0 + 2 * DAY + 5)).toBe(3);
      expect(await ensure(day0, day0 + 3 * DAY - 1)).toBe(0);
      await expect(ensure(day0, day0 + 1000 * DAY)).rejects.toThrow("spans 1001 days; at most 1000 at once");
      await expect(ensure(day0 + 1, day0)).rejects.toThrow("is not a range");

      const series = async (projectId: string, assetId: string, variable: string) => {
        const [row] = await db
          .insert(pgSchema.telemetrySeries)
          .values({ projectId, assetId, variable })
          .returning({ id: pgSchema.telemetrySeries.id });
        if (!row) throw new Error("no series");
        return row.id;
      };
      const a = await seedProject();
      const b = await seedProject();
      const s1 = await series(a.projectId, a.wellId, "pressure");
      const s2 = await series(b.projectId, b.wellId, "pressure");
      const stamps = [day0, day0 + DAY - 1, day0 + DAY, day0 + 2 * DAY + 5];
      for (const s of [s1, s2]) {
        await db
          .insert(pgSchema.telemetryRaw)
          .values(stamps.map((ts) => ({ seriesId: s, ts, value: ts / DAY })));
        await db
          .insert(pgSchema.telemetryPacked)
          .values({ seriesId: s, firstTs: 1, lastTs: 2, count: 2, data: Buffer.from([1]) });
        await db
          .insert(pgSchema.telemetryRollup5m)
          .values({ seriesId: s, bucket: day0, count: 1, sum: 1, min: 1, max: 1 });
        await db
          .insert(pgSchema.telemetryRollup1h)
          .values({ seriesId: s, bucket: day0, count: 1, sum: 1, min: 1, max: 1 });
        await db.insert(pgSchema.telemetryInbox).values({ seriesId: s, ts: day0 + 3 * DAY, value: 1 });
      }
      const placed = await pool.query<{ ts: string; part: string }>(
        "SELECT ts, tableoid::regclass::text AS part FROM telemetry_raw WHERE series_id = $1 ORDER BY ts",
        [s1],
      );
      expect(placed.rows.map((r) => [Number(r.ts), r.part])).toEqual([
        [day0, "telemetry_raw_20300301"],
        [day0 + DAY - 1, "telemetry_raw_20300301"],
        [day0 + DAY, "telemetry_raw_20300302"],
        [day0 + 2 * DAY + 5, "telemetry_raw_20300303"],
      ]);
      // No catch-all partition: a reading of a day without one is refused, not misfiled.
      await expect(
        pool.query("INSERT INTO telemetry_raw (series_id, ts, value) VALUES ($1, $2, 0)", [s1, day0 - 1]),
      ).rejects.toThrow('no partition of relation "telemetry_raw" found for row');
      await expect(
        pool.query("INSERT INTO telemetry_raw (series_id, ts, value) VALUES ($1, $2, 0)", [s1, day0]),
      ).rejects.toThrow("duplicate key");

      // A series' readings, blocks and rollups go with it: with its asset, or with its project.
      const left = async (s: number) =>
        Promise.all(
          [
            "telemetry_raw",
            "telemetry_packed",
            "telemetry_rollup_5m",
            "telemetry_rollup_1h",
            "telemetry_inbox",
          ].map((t) => count(`${t} WHERE series_id = $1`, [s])),
        );
      expect(await left(s1)).toEqual([4, 1, 1, 1, 1]);
      await pool.query("DELETE FROM assets WHERE id = $1", [a.wellId]);
      expect(await left(s1)).toEqual([0, 0, 0, 0, 0]);
      expect(await left(s2)).toEqual([4, 1, 1, 1, 1]);

      // Retention: only days that ended by the cutoff go, whole.
      const partitions = async () =>
        (
          await pool.query<{ name: string }>(
            "SELECT inhrelid::regclass::text AS name FROM pg_inherits WHERE inhparent = 'telemetry_raw'::regclass ORDER BY 1",
          )
        ).rows.map((r) => r.name);
      const dropped = await pool.query("SELECT caudal_drop_telemetry_partitions($1) AS n", [day0 + DAY + 1]);
      expect(dropped.rows[0]).toEqual({ n: 1 });
      expect(await partitions()).toEqual(["telemetry_raw_20300302", "telemetry_raw_20300303"]);
      expect(await count("telemetry_raw WHERE series_id = $1", [s2])).toBe(2);

      await pool.query("DELETE FROM projects WHERE id = $1", [b.projectId]);
      expect(await left(s2)).toEqual([0, 0, 0, 0, 0]);
    },
  );
});
