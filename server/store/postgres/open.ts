import { drizzle } from "drizzle-orm/node-postgres";
import { connectPool, type PoolOptions } from "./client.ts";
import { PostgresStore } from "./postgres-store.ts";
import * as schema from "./schema/index.ts";

/**
 * The PostgreSQL store of a server process, over a pool of its own. The owner (the main thread)
 * applies pending migrations first; a reader (an HTTP worker thread) starts after it did.
 */
export async function openPostgresStore(
  url: string,
  role: "owner" | "reader",
  options: PoolOptions,
): Promise<PostgresStore> {
  if (role === "owner") return PostgresStore.open(url, options);
  const pool = connectPool(url, options);
  return new PostgresStore({ db: drizzle(pool, { schema }), pool, close: () => pool.end() });
}
