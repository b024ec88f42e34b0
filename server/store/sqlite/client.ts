import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { type BetterSQLite3Database, drizzle } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import { prepareDatabaseFile } from "./file-modes.ts";
import * as schema from "./schema/index.ts";

export type Db = BetterSQLite3Database<typeof schema>;
export type Sqlite = Database.Database;

export type DatabaseHandle = { db: Db; sqlite: Sqlite; close(): void };

const migrationsFolder = fileURLToPath(new URL("./migrations", import.meta.url));

/**
 * Opens (creating if needed, owner-only: see file-modes.ts) the server database at `file` and
 * applies pending migrations.
 */
export function openDatabase(file: string): DatabaseHandle {
  if (file !== ":memory:") prepareDatabaseFile(file);
  const sqlite = new Database(file);
  // Lets the telemetry packer give freed pages back (PRAGMA incremental_vacuum). It only takes
  // effect on a new database, and only when set before WAL mode writes the header; an older
  // database keeps its freed pages for new rows.
  sqlite.pragma("auto_vacuum = INCREMENTAL");
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma("busy_timeout = 5000");
  const db = drizzle(sqlite, { schema });
  migrate(db, { migrationsFolder });
  return { db, sqlite, close: () => sqlite.close() };
}
