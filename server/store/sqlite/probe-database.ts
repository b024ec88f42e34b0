import type { Statement } from "better-sqlite3";
import type { Sqlite } from "./client.ts";

const statements = new WeakMap<Sqlite, Statement>();

/**
 * A real round trip through SQLite: reads a row of the users table (its B-tree, not just the
 * schema cache). Throws when the database cannot answer (closed handle, I/O error, corruption).
 */
export function probeDatabase(sqlite: Sqlite): void {
  let statement = statements.get(sqlite);
  if (!statement) {
    statement = sqlite.prepare("SELECT 1 FROM users LIMIT 1");
    statements.set(sqlite, statement);
  }
  statement.get();
}
