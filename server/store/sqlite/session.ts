import type { Db, Sqlite } from "./client.ts";
import type { TransactionGate } from "./transaction-gate.ts";

/** What every SQLite port works through: the one connection, and the gate around its transactions. */
export type SqliteSession = { readonly db: Db; readonly sqlite: Sqlite; readonly gate: TransactionGate };
