import Database from "better-sqlite3";
import { drizzle } from "drizzle-orm/better-sqlite3";
import { openDatabase } from "./client.ts";
import * as schema from "./schema/index.ts";
import { SqliteStore } from "./sqlite-store.ts";

/**
 * The SQLite store of a server process. The owner (the main thread) creates the file if needed,
 * migrates it and writes; a reader (an HTTP worker thread) opens the existing file read-only:
 * readers never block the writer (WAL), and every statement sees the latest commit.
 */
export function openSqliteStore(
  file: string,
  role: "owner" | "reader",
): { store: SqliteStore; close(): Promise<void> } {
  if (role === "owner") {
    const handle = openDatabase(file);
    return { store: new SqliteStore(handle), close: async () => handle.close() };
  }
  const sqlite = new Database(file, { readonly: true, fileMustExist: true });
  sqlite.pragma("busy_timeout = 5000");
  return {
    store: new SqliteStore({ db: drizzle(sqlite, { schema }), sqlite }),
    close: async () => void sqlite.close(),
  };
}
