import type { Pool } from "pg";
import { migratePostgres, openPostgres, type PostgresHandle } from "../postgres/client.ts";
import { PostgresStore } from "../postgres/postgres-store.ts";
import { postgresTableNames, type TablePlan } from "./plan.ts";
import { MigrationProgress, PROGRESS_TABLE, RUN_TABLE } from "./progress.ts";
import type { SqliteSource } from "./source.ts";

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** drizzle's record of applied migrations (drizzle-orm/node-postgres/migrator's default). */
const MIGRATIONS_TABLE = "drizzle.__drizzle_migrations";

/**
 * The PostgreSQL database a site moves to, with the server's migrations applied (openPostgres
 * applies them), served through PostgresStore for verification.
 */
export class PostgresTarget {
  readonly handle: PostgresHandle;
  readonly store: PostgresStore;
  readonly progress: MigrationProgress;

  private constructor(handle: PostgresHandle) {
    this.handle = handle;
    this.store = new PostgresStore(handle);
    this.progress = new MigrationProgress(handle.pool);
  }

  static async open(url: string): Promise<PostgresTarget> {
    return new PostgresTarget(await openPostgres(url, { max: 4 }));
  }

  get pool(): Pool {
    return this.handle.pool;
  }

  /** The server's tables that hold any row (audit_log_head counts once it issued a seq). */
  async tablesWithData(): Promise<string[]> {
    const busy: string[] = [];
    for (const table of postgresTableNames()) {
      const where = table === "audit_log_head" ? " WHERE seq > 0" : "";
      const { rows } = await this.pool.query<{ any: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM ${quote(table)}${where}) AS any`,
      );
      if (rows[0]?.any) busy.push(table);
    }
    return busy;
  }

  /**
   * --restart: drops every table, function and trigger the server's migrations made, and the
   * migration's own progress, then applies the migrations again. Nothing else in the database is
   * touched. The append-only guards are not switched off: the tables they guard go whole.
   */
  async empty(): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query("BEGIN");
      // CASCADE takes telemetry_raw's day partitions and the foreign keys between the tables.
      for (const table of [...postgresTableNames(), RUN_TABLE, PROGRESS_TABLE]) {
        await client.query(`DROP TABLE IF EXISTS ${quote(table)} CASCADE`);
      }
      const functions = await client.query<{ signature: string }>(
        `SELECT p.oid::regprocedure::text AS signature FROM pg_proc p
           JOIN pg_namespace n ON n.oid = p.pronamespace
          WHERE n.nspname = current_schema() AND p.proname LIKE 'caudal\\_%'`,
      );
      for (const { signature } of functions.rows) await client.query(`DROP FUNCTION ${signature}`);
      await client.query(`DROP TABLE IF EXISTS ${MIGRATIONS_TABLE}`);
      await client.query("COMMIT");
    } catch (error) {
      await client.query("ROLLBACK");
      throw error;
    } finally {
      client.release();
    }
    await migratePostgres(this.handle.db);
  }

  /**
   * Sets each identity column the copy filled (telemetry_series.id) past the highest id copied,
   * and past the highest SQLite ever issued (AUTOINCREMENT never reuses a deleted row's id), so
   * the server's next insert takes a new one.
   */
  async advanceIdentities(plans: readonly TablePlan[], source: SqliteSource): Promise<void> {
    const { rows } = await this.pool.query<{ table_name: string; column_name: string }>(
      `SELECT table_name, column_name FROM information_schema.columns
        WHERE table_schema = current_schema() AND is_identity = 'YES' AND identity_generation = 'BY DEFAULT'`,
    );
    for (const { table_name: table, column_name: column } of rows) {
      if (!plans.some((p) => p.name === table && p.columns.some((c) => c.name === column))) continue;
      await this.pool.query(
        `SELECT setval(pg_get_serial_sequence($1, $2), m) FROM (
           SELECT GREATEST(max(${quote(column)}), $3::bigint) AS m FROM ${quote(table)}) AS highest
          WHERE m > 0`,
        [quote(table), column, source.autoincrementSeq(table)],
      );
    }
  }

  close(): Promise<void> {
    return this.store.close();
  }
}
