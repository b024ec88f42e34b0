import type { PgColumn } from "drizzle-orm/pg-core";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";

/** Turns a SQLite driver value (never null) into the PostgreSQL driver value of the same column. */
export type ConvertValue = (value: unknown) => unknown;

/**
 * How each kind of SQLite column (drizzle's columnType) is stored on PostgreSQL
 * (docs/scale-out.md, "The schema"), and whether its driver value passes as it is. Text, JSON
 * included, is copied as the exact text stored: audit and config hashes cover those bytes, and
 * parsing and writing it again could change them.
 */
const KINDS: Record<string, { pgType: string; asIs: boolean }> = {
  SQLiteText: { pgType: "text", asIs: true },
  SQLiteTextJson: { pgType: "text", asIs: true },
  SQLiteInteger: { pgType: "bigint", asIs: true },
  SQLiteReal: { pgType: "double precision", asIs: true },
  SQLiteBlobBuffer: { pgType: "bytea", asIs: true },
  // Epoch milliseconds on both engines: read as a Date by one schema, written back by the other.
  SQLiteTimestamp: { pgType: "bigint", asIs: false },
  // 0/1 on SQLite, boolean on PostgreSQL.
  SQLiteBoolean: { pgType: "boolean", asIs: false },
};

/**
 * The conversion of column `label` from SQLite to PostgreSQL, through the two drizzle columns
 * (null: the value passes as it is). Throws for a pairing the migration does not know, so that a
 * new kind of column is looked at before any data moves.
 */
export function converterFor(label: string, lite: SQLiteColumn, pg: PgColumn): ConvertValue | null {
  const kind = KINDS[lite.columnType];
  const pgType = pg.getSQLType();
  if (!kind || kind.pgType !== pgType) {
    throw new Error(`${label}: no known conversion from SQLite ${lite.columnType} to PostgreSQL ${pgType}`);
  }
  if (kind.asIs) return null;
  return (value) => pg.mapToDriverValue(lite.mapFromDriverValue(value));
}
