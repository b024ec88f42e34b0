import type { PgDb } from "./client.ts";

/** An open drizzle transaction on one pooled connection. */
export type PgTx = Parameters<Parameters<PgDb["transaction"]>[0]>[0];

/** Where statements go: the pool (each statement on any free connection) or one open transaction. */
export type PgExecutor = PgDb | PgTx;

/**
 * What every PostgreSQL port works through. `executor()` is asked at each call: the store's own
 * ports answer inside the transaction their caller is in (as on SQLite's one connection), the
 * ports handed to a transaction's work always inside it.
 */
export type PgSession = {
  executor(): PgExecutor;
  /** True when `executor()` is a transaction: a multi-statement write needs no BEGIN of its own. */
  inTransaction(): boolean;
};
