import type { ServerConfig } from "../config.ts";
import type { CaudalServer } from "../server.ts";
import { storeLocation } from "../store/location.ts";
import { openStore } from "../store/open-store.ts";
import { PostgresStore } from "../store/postgres/postgres-store.ts";
import { SqliteStore } from "../store/sqlite/sqlite-store.ts";
import type { Backend, Store } from "../store/store.ts";

/*
 * Test support for what no port exposes: rows a test must look at or tamper with (the append-only
 * triggers refusing an UPDATE, an audit entry edited to prove that verify catches it, a write that
 * must not have happened). Prefer the store's ports (`server.store`) or the HTTP API; reach for this
 * only when neither can say it.
 *
 * SQL must be what both engines accept: double-quoted (or plain lower-case) identifiers, standard
 * functions, `?` placeholders (translated to $1, $2… for PostgreSQL).
 *
 * Values go in as the server writes them: a Date as epoch milliseconds, a boolean as SQLite's 1/0.
 * Rows come back as SQLite reads them whatever the engine: integers and instants as numbers
 * (PostgreSQL's bigint and numeric too), flags as 1/0, bytes as Buffers, JSON as its text.
 */

export type Row = Record<string, unknown>;
/** Column = value conditions, all of which must hold (none: every row). */
export type Where = Readonly<Record<string, unknown>>;

/** A column as both engines describe it; `type` is the kind of value it holds. */
export type ProbedColumn = {
  name: string;
  type: "integer" | "real" | "text" | "blob" | "boolean";
  notNull: boolean;
  /** A default, or a value the engine assigns (SQLite's rowid, a PostgreSQL identity). */
  hasDefault: boolean;
  /** Its place in the primary key, from 1; 0 when not part of it. */
  primaryKey: number;
};

/** A single-column foreign key: `from` of this table references `to` of `table`. */
export type ProbedForeignKey = { table: string; from: string; to: string };

export type TableProbe = {
  readonly backend: Backend;
  /** How many rows of `table` match `where`. */
  count(table: string, where?: Where): Promise<number>;
  /** The rows of `table` that match `where`, every column, ascending by `orderBy` when given. */
  rows<T = Row>(table: string, where?: Where, orderBy?: string): Promise<T[]>;
  /** A statement that returns rows (a SELECT, an INSERT … RETURNING). */
  query<T = Row>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  /** A statement that returns none; how many rows it changed. Rejects with the engine's error. */
  run(sql: string, params?: readonly unknown[]): Promise<number>;
  /**
   * Runs `work` with every trigger of `table` off, as an attacker with the database's files could,
   * then puts them back, also when `work` fails.
   */
  withoutTriggers<T>(table: string, work: () => Promise<T>): Promise<T>;
  /**
   * Runs `work` with every INSERT into `table` failing with the engine's own error, whose message
   * holds `message` (a write that fails inside a transaction), then lets inserts through again,
   * also when `work` fails.
   */
  withFailingInserts<T>(table: string, message: string, work: () => Promise<T>): Promise<T>;
  /**
   * Cuts the server off its database, as a database gone away would: SQLite's connection is
   * closed, PostgreSQL's pool ended. Not undone: stop the server after.
   */
  loseDatabase(): Promise<void>;
  /** The application's tables (not the engine's, nor the migrator's; no partitions), by name. */
  tables(): Promise<string[]>;
  /** The columns of `table`, in their order. */
  columns(table: string): Promise<ProbedColumn[]>;
  foreignKeys(table: string): Promise<ProbedForeignKey[]>;
};

/** The probe of `server`'s database, on whichever engine its store runs. */
export function tableProbe(server: CaudalServer): TableProbe {
  return storeProbe(server.store);
}

/**
 * The probe of the database `config` names, opened by the test itself: a stopped server's (in
 * TestServer.restart's whileDown), to leave what a crash would. close() lets go of it.
 */
export async function openProbe(
  config: ServerConfig,
): Promise<{ probe: TableProbe; close(): Promise<void> }> {
  const opened = await openStore(storeLocation(config), {
    role: "owner",
    poolSize: 1,
    onIdleError: () => undefined,
  });
  return { probe: storeProbe(opened.store), close: opened.close };
}

/** The probe of the database behind `store`. */
export function storeProbe(store: Store): TableProbe {
  if (store instanceof SqliteStore) return sqliteProbe(store.connection);
  if (store instanceof PostgresStore) return postgresProbe(store.pool);
  throw new Error(`no table probe for the ${store.backend} store`);
}

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

/** `FROM "table" WHERE "a" = ? AND …` and its parameters. */
function selection(table: string, where: Where): [string, unknown[]] {
  const columns = Object.keys(where);
  const conditions = columns.map((c) => `${quoted(c)} = ?`).join(" AND ");
  return [`FROM ${quoted(table)}${conditions ? ` WHERE ${conditions}` : ""}`, columns.map((c) => where[c])];
}

function probeOver(backend: Backend, engine: Omit<TableProbe, "backend" | "count" | "rows">): TableProbe {
  return {
    backend,
    ...engine,
    async count(table, where = {}) {
      const [from, params] = selection(table, where);
      const [row] = await engine.query<{ n: number }>(`SELECT count(*) AS n ${from}`, params);
      return row?.n ?? 0;
    },
    rows(table, where = {}, orderBy) {
      const [from, params] = selection(table, where);
      return engine.query(`SELECT * ${from}${orderBy ? ` ORDER BY ${quoted(orderBy)}` : ""}`, params);
    },
  };
}

// SQLite: the server's one connection (synchronous statements, run between its transactions).

type SqliteConnection = SqliteStore["connection"];

function sqliteParam(value: unknown): unknown {
  if (value instanceof Date) return value.getTime();
  if (typeof value === "boolean") return value ? 1 : 0;
  return value;
}

/** SQLite's type affinity (§3.1 of its datatype page), as the column kinds the probe names. */
function sqliteType(declared: string): ProbedColumn["type"] {
  const type = declared.toUpperCase();
  if (type.includes("INT")) return "integer";
  if (type.includes("CHAR") || type.includes("CLOB") || type.includes("TEXT")) return "text";
  if (type.includes("BLOB") || type === "") return "blob";
  return "real";
}

/** The probe of a SQLite connection (a store's, or one a test of the SQLite adapter opened itself). */
export function sqliteProbe(sqlite: SqliteConnection): TableProbe {
  const params = (values: readonly unknown[]) => values.map(sqliteParam);
  return probeOver("sqlite", {
    query: async <T>(sql: string, values: readonly unknown[] = []) =>
      sqlite.prepare(sql).all(...params(values)) as T[],
    run: async (sql, values = []) => sqlite.prepare(sql).run(...params(values)).changes,
    async withoutTriggers(table, work) {
      const triggers = sqlite
        .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ?")
        .all(table) as { name: string; sql: string }[];
      for (const { name } of triggers) sqlite.exec(`DROP TRIGGER ${quoted(name)}`);
      try {
        return await work();
      } finally {
        for (const { sql } of triggers) sqlite.exec(sql);
      }
    },
    async withFailingInserts(table, message, work) {
      const trigger = quoted(`fail_${table}_insert`);
      sqlite.exec(
        `CREATE TEMP TRIGGER ${trigger} BEFORE INSERT ON ${quoted(table)} BEGIN SELECT RAISE(ABORT, ${literal(message)}); END`,
      );
      try {
        return await work();
      } finally {
        sqlite.exec(`DROP TRIGGER temp.${trigger}`);
      }
    },
    loseDatabase: async () => void sqlite.close(),
    async tables() {
      const rows = sqlite
        .prepare(
          "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '__drizzle%' ORDER BY name",
        )
        .all() as { name: string }[];
      return rows.map((r) => r.name);
    },
    async columns(table) {
      const columns = sqlite.prepare(`PRAGMA table_info(${quoted(table)})`).all() as {
        name: string;
        type: string;
        notnull: number;
        dflt_value: unknown;
        pk: number;
      }[];
      // A single INTEGER PRIMARY KEY is the rowid: SQLite assigns it.
      const rowid =
        columns.filter((c) => c.pk > 0).length === 1
          ? columns.find((c) => c.pk > 0 && c.type === "INTEGER")
          : undefined;
      return columns.map((c) => ({
        name: c.name,
        type: sqliteType(c.type),
        notNull: c.notnull === 1,
        hasDefault: c.dflt_value !== null || c === rowid,
        primaryKey: c.pk,
      }));
    },
    async foreignKeys(table) {
      const keys = sqlite.prepare(`PRAGMA foreign_key_list(${quoted(table)})`).all() as ProbedForeignKey[];
      return keys.map(({ table, from, to }) => ({ table, from, to }));
    },
  });
}

// PostgreSQL: the store's pool (each statement on any free connection, outside store transactions).

type PgPool = PostgresStore["pool"];

/** pg's type OIDs that SQLite reads as numbers: int8 (count(*), instants, ids), numeric (SUM of int8), bool. */
const INT8 = 20;
const NUMERIC = 1700;
const BOOL = 16;

/** `?` to `$1`, `$2`…, outside quoted strings and identifiers. */
export function dollarPlaceholders(sql: string): string {
  let n = 0;
  let quote: string | null = null;
  let out = "";
  for (const ch of sql) {
    if (quote) {
      if (ch === quote) quote = null;
    } else if (ch === "'" || ch === '"') quote = ch;
    else if (ch === "?") {
      out += `$${++n}`;
      continue;
    }
    out += ch;
  }
  return out;
}

function postgresType(type: string): ProbedColumn["type"] {
  if (type === "boolean") return "boolean";
  if (type === "bytea") return "blob";
  if (type === "bigint" || type === "integer" || type === "smallint") return "integer";
  if (type === "double precision" || type === "real" || type === "numeric") return "real";
  return "text";
}

function postgresParam(value: unknown): unknown {
  return value instanceof Date ? value.getTime() : value;
}

function postgresProbe(pool: PgPool): TableProbe {
  const send = (sql: string, values: readonly unknown[]) =>
    pool.query(dollarPlaceholders(sql), values.map(postgresParam));
  return probeOver("postgres", {
    async query<T>(sql: string, values: readonly unknown[] = []) {
      const result = await send(sql, values);
      const convert = result.fields.flatMap((f): [string, (v: unknown) => unknown][] => {
        if (f.dataTypeID === INT8 || f.dataTypeID === NUMERIC) return [[f.name, Number]];
        if (f.dataTypeID === BOOL) return [[f.name, (v) => (v ? 1 : 0)]];
        return [];
      });
      return result.rows.map((row: Row) => {
        for (const [name, to] of convert) if (row[name] !== null) row[name] = to(row[name]);
        return row as T;
      });
    },
    run: async (sql, values = []) => (await send(sql, values)).rowCount ?? 0,
    async withoutTriggers(table, work) {
      await pool.query(`ALTER TABLE ${quoted(table)} DISABLE TRIGGER USER`);
      try {
        return await work();
      } finally {
        await pool.query(`ALTER TABLE ${quoted(table)} ENABLE TRIGGER USER`);
      }
    },
    async withFailingInserts(table, message, work) {
      const name = quoted(`fail_${table}_insert`);
      await pool.query(
        `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION '%', ${literal(message)}; END $$`,
      );
      await pool.query(
        `CREATE TRIGGER ${name} BEFORE INSERT ON ${quoted(table)} FOR EACH ROW EXECUTE FUNCTION ${name}()`,
      );
      try {
        return await work();
      } finally {
        await pool.query(`DROP TRIGGER ${name} ON ${quoted(table)}`);
        await pool.query(`DROP FUNCTION ${name}()`);
      }
    },
    loseDatabase: () => pool.end(),
    async tables() {
      const { rows } = await pool.query<{ name: string }>(
        `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND NOT c.relispartition
            AND c.relname NOT LIKE '__drizzle%'
          ORDER BY c.relname COLLATE "C"`,
      );
      return rows.map((r) => r.name);
    },
    async columns(table) {
      const { rows } = await pool.query<{
        name: string;
        type: string;
        not_null: boolean;
        has_default: boolean;
        pk: number;
      }>(
        `SELECT a.attname AS name, format_type(a.atttypid, NULL) AS type, a.attnotnull AS not_null,
                (a.atthasdef OR a.attidentity <> '') AS has_default,
                coalesce((SELECT k.n FROM unnest(i.indkey) WITH ORDINALITY AS k(attnum, n)
                           WHERE k.attnum = a.attnum), 0) AS pk
           FROM pg_attribute a
           LEFT JOIN pg_index i ON i.indrelid = a.attrelid AND i.indisprimary
          WHERE a.attrelid = $1::regclass AND a.attnum > 0 AND NOT a.attisdropped
          ORDER BY a.attnum`,
        [quoted(table)],
      );
      return rows.map((c) => ({
        name: c.name,
        type: postgresType(c.type),
        notNull: c.not_null,
        hasDefault: c.has_default,
        primaryKey: Number(c.pk),
      }));
    },
    async foreignKeys(table) {
      const { rows } = await pool.query<ProbedForeignKey>(
        `SELECT p.relname AS table, fa.attname AS "from", pa.attname AS "to"
           FROM pg_constraint k
           JOIN pg_class p ON p.oid = k.confrelid
           JOIN pg_attribute fa ON fa.attrelid = k.conrelid AND fa.attnum = k.conkey[1]
           JOIN pg_attribute pa ON pa.attrelid = k.confrelid AND pa.attnum = k.confkey[1]
          WHERE k.contype = 'f' AND k.conrelid = $1::regclass
          ORDER BY k.conname`,
        [quoted(table)],
      );
      return rows;
    },
  });
}
