import type { CaudalServer } from "../server.ts";
import { SqliteStore } from "../store/sqlite/sqlite-store.ts";

/**
 * The SQLite connection under a running server, for tests and benchmarks of the SQLite adapter's
 * own properties (its raw rows, inbox, packed blocks, pragmas). Throws on a server that runs on
 * another engine: such a test is the SQLite adapter's, and engine-neutral tests use the table probe
 * (table-probe.ts) or the ports instead.
 */
export function sqliteConnection(server: CaudalServer): SqliteStore["connection"] {
  const store = server.store;
  if (!(store instanceof SqliteStore)) {
    throw new Error(`this test reads the SQLite adapter, but the server runs on ${store.backend}`);
  }
  return store.connection;
}
