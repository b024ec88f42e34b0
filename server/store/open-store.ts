import type { StoreLocation } from "./location.ts";
import { openPostgresStore } from "./postgres/open.ts";
import { openSqliteStore } from "./sqlite/open.ts";
import type { Store } from "./store.ts";

export type OpenStoreOptions = {
  /** "owner": the server's main thread (creates, migrates, writes); "reader": an HTTP worker thread. */
  role: "owner" | "reader";
  /** PostgreSQL: connections of this process's pool (DATABASE_POOL_SIZE). */
  poolSize: number;
  /** PostgreSQL: an idle connection that failed and was dropped (the server restarted, the network). */
  onIdleError(error: Error): void;
};

/** A store and what lets go of it: the SQLite connection, or the pool. */
export type OpenedStore = { store: Store; close(): Promise<void> };

/** Opens the store DATABASE_URL chose (location.ts): the one place that picks an engine. */
export async function openStore(location: StoreLocation, options: OpenStoreOptions): Promise<OpenedStore> {
  if (location.engine === "sqlite") return openSqliteStore(location.file, options.role);
  const store = await openPostgresStore(location.url, options.role, {
    max: options.poolSize,
    onIdleError: options.onIdleError,
  });
  return { store, close: () => store.close() };
}
