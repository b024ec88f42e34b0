import { Pool } from "pg";
import { startPostgres, type TestPostgres } from "../testing/postgres.ts";
import { allocatedBytes } from "./peers/disk-usage.ts";

/** `--backend sqlite|postgres`, for a benchmark's parseArgs options. */
export const backendOption = { backend: { type: "string", default: "sqlite" } } as const;

export type BackendName = "sqlite" | "postgres";

/** A database of one measured run: the server config that selects it, and its size. */
export type BenchDatabase = {
  /** What the server's config needs (empty for SQLite: DATA_DIR/caudal.db). */
  readonly env: Record<string, string>;
  /** Bytes the database takes on disk; `dataDir` is the run's DATA_DIR (SQLite's home). */
  bytes(dataDir: string): Promise<number>;
  /** Removes it (PostgreSQL: DROP DATABASE); the run's DATA_DIR is the caller's to remove. */
  drop(): Promise<void>;
};

/**
 * The engine a benchmark runs the server on. SQLite needs nothing; PostgreSQL is a throw-away
 * PostgreSQL 15 from Debian, started once per benchmark with durable settings comparable to the
 * server's SQLite (scripts/testing/postgres.ts, profile "bench"), with a new database per run.
 */
export type BenchBackend = {
  readonly name: BackendName;
  database(): Promise<BenchDatabase>;
  stop(): Promise<void>;
};

export function parseBackend(value: string | undefined): BackendName {
  if (value === "sqlite" || value === "postgres") return value;
  throw new Error(`--backend: must be sqlite or postgres, not ${JSON.stringify(value)}`);
}

export async function openBenchBackend(name: BackendName): Promise<BenchBackend> {
  if (name === "sqlite") {
    return {
      name,
      database: async () => ({
        env: {},
        bytes: async (dataDir) => allocatedBytes(dataDir),
        drop: async () => {},
      }),
      stop: async () => {},
    };
  }
  const instance: TestPostgres = await startPostgres("bench");
  const admin = new Pool({ connectionString: instance.url, max: 1 });
  let made = 0;
  return {
    name,
    async database() {
      const db = `bench_${process.pid}_${++made}`;
      await admin.query(`CREATE DATABASE ${db} ENCODING 'UTF8' LOCALE 'C' TEMPLATE template0`);
      const url = instance.url.replace(/\/postgres$/, `/${db}`);
      return {
        env: { DATABASE_URL: url },
        // The database's relations and indexes, allocated; the cluster's WAL is shared and recycled.
        bytes: async () => Number((await admin.query(`SELECT pg_database_size($1) AS n`, [db])).rows[0].n),
        drop: async () => void (await admin.query(`DROP DATABASE ${db} WITH (FORCE)`)),
      };
    },
    async stop() {
      await admin.end();
      await instance.stop();
    },
  };
}
