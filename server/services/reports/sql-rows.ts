import type { Sqlite } from "../../store/sqlite/client.ts";

/**
 * Rows of a raw SQL query as arrays (better-sqlite3 `.raw()`), for the aggregate queries that
 * drizzle does not express (window functions) or where per-row objects would cost too much.
 * better-sqlite3 types rows as unknown; the caller states the column types of its own SELECT.
 */
export function rawRows<T extends unknown[]>(sqlite: Sqlite, sql: string, ...params: unknown[]): T[] {
  return sqlite
    .prepare(sql)
    .raw()
    .all(...params) as T[];
}
