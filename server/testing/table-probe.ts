import type { CaudalServer } from "../server.ts";
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
   * Cuts the server off its database, as a database gone away would: SQLite's connection is
   * closed, PostgreSQL's pool ended. Not undone: stop the server after.
   */
  loseDatabase(): Promise<void>;
};

/** The probe of `server`'s database, on whichever engine its store runs. */
export function tableProbe(server: CaudalServer): TableProbe {
  return storeProbe(server.store);
}

/** The probe of the database behind `store`. */
export function storeProbe(store: Store): TableProbe {
  if (store instanceof SqliteStore) return sqliteProbe(store.connection);
  if (store instanceof PostgresStore) return postgresProbe(store.pool);
  throw new Error(`no table probe for the ${store.backend} store`);
}

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** `FROM "table" WHERE "a" = ? AND …` and its parameters. */
function selection(table: string, where: Where): [string, unknown[]] {
  const columns = Object.keys(where);
  const conditions = columns.map((c) => `${quoted(c)} = ?`).join(" AND ");
  return [`FROM ${quoted(table)}${conditions ? ` WHERE ${conditions}` : ""}`, columns.map((c) => where[c])];
}

function probeOver(
  backend: Backend,
  engine: Pick<TableProbe, "query" | "run" | "withoutTriggers" | "loseDatabase">,
): TableProbe {
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

function sqliteProbe(sqlite: SqliteConnection): TableProbe {
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
    loseDatabase: async () => void sqlite.close(),
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
    loseDatabase: () => pool.end(),
  });
}
