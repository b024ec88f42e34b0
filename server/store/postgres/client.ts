import { fileURLToPath } from "node:url";
import { drizzle, type NodePgDatabase } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import { Pool } from "pg";
import * as schema from "./schema/index.ts";

export type PgDb = NodePgDatabase<typeof schema>;
export type PostgresHandle = { db: PgDb; pool: Pool; close(): Promise<void> };

export const migrationsFolder = fileURLToPath(new URL("./migrations", import.meta.url));

export type PoolOptions = {
  /** Connections at most (pg's default is 10). */
  max?: number;
  /**
   * An idle connection that fails (the server restarted, the network dropped) is discarded by
   * the pool, which reports it here; without a listener the error would end the process.
   */
  onIdleError?: (error: Error) => void;
};

/** A pg (node-postgres) pool on `url`, e.g. postgres://user@host:5432/caudal. */
export function connectPool(url: string, options: PoolOptions = {}): Pool {
  const pool = new Pool({ connectionString: url, max: options.max ?? 10, application_name: "caudal" });
  pool.on("error", options.onIdleError ?? (() => {}));
  return pool;
}

/** Applies the pending migrations of server/store/postgres/migrations, all in one transaction. */
export function migratePostgres(db: PgDb): Promise<void> {
  return migrate(db, { migrationsFolder });
}

/** Opens a pool on `url` and applies pending migrations. */
export async function openPostgres(url: string, options: PoolOptions = {}): Promise<PostgresHandle> {
  const pool = connectPool(url, options);
  const db = drizzle(pool, { schema });
  try {
    await migratePostgres(db);
  } catch (error) {
    await pool.end();
    throw error;
  }
  // Ending twice is harmless: a test may have cut the pool already (server/testing/table-probe.ts).
  return { db, pool, close: () => (pool.ending ? Promise.resolve() : pool.end()) };
}
