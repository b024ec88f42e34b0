import { inject } from "vitest";
import { connectPool } from "../store/postgres/client.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** The run's PostgreSQL (CAUDAL_TEST_DATABASE=postgres): its postgres database's URL. */
    testPostgresUrl: string;
  }
}

/** The database every server of the run's tests copies its own from (PostgreSQL runs). */
export const TEST_TEMPLATE_DATABASE = "caudal_test_template";

/**
 * Which engine the run's test servers keep their data in: SQLite files in their DATA_DIR (the
 * default), or PostgreSQL with CAUDAL_TEST_DATABASE=postgres (`npm test` runs the suite both
 * ways; scripts/testing/postgres-global-setup.ts starts the PostgreSQL).
 */
export function testEngine(): "sqlite" | "postgres" {
  const engine = process.env.CAUDAL_TEST_DATABASE ?? "sqlite";
  if (engine !== "sqlite" && engine !== "postgres") {
    throw new Error(`CAUDAL_TEST_DATABASE: must be sqlite or postgres, not ${JSON.stringify(engine)}`);
  }
  return engine;
}

/** True on PostgreSQL runs (a describe of the SQLite adapter's own is not declared there). */
export function onPostgres(): boolean {
  return testEngine() === "postgres";
}

/** A test server's own database: its DATABASE_URL, removed by drop(). */
export type TestDatabase = { readonly url: string; drop(): Promise<void> };

let admin: ReturnType<typeof connectPool> | undefined;
let made = 0;

/**
 * A new, migrated, empty PostgreSQL database for one test server (a copy of the run's template,
 * which takes tens of milliseconds), or undefined on SQLite runs, where DATA_DIR holds the data.
 */
export async function openTestDatabase(): Promise<TestDatabase | undefined> {
  if (testEngine() === "sqlite") return undefined;
  const clusterUrl = inject("testPostgresUrl");
  if (!clusterUrl) throw new Error("CAUDAL_TEST_DATABASE=postgres, but the run started no PostgreSQL");
  admin ??= connectPool(clusterUrl, { max: 1 });
  const pool = admin;
  const name = `test_${process.pid}_${++made}`;
  await pool.query(`CREATE DATABASE ${name} TEMPLATE ${TEST_TEMPLATE_DATABASE}`);
  return {
    url: clusterUrl.replace(/\/postgres$/, `/${name}`),
    drop: async () => void (await pool.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)),
  };
}
