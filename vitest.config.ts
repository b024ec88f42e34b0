import { configDefaults, defineConfig } from "vitest/config";
import { SkipSummaryReporter } from "./scripts/testing/skip-summary.ts";

/*
 * CAUDAL_TEST_DATABASE=postgres runs the suite again with every test server on PostgreSQL
 * (server/testing/test-database.ts). Left out of that run: tests that exercise one engine's adapter
 * directly (the SQLite adapter's own machinery; PostgreSQL's, the contract suites and the migration
 * already start their own PostgreSQL), and tests that start no server.
 */
const onPostgres = process.env.CAUDAL_TEST_DATABASE === "postgres";
const POSTGRES_RUN = [
  "server/**/*.test.ts",
  "agent/e2e/**/*.test.ts",
  "agent/enroll.test.ts",
  "scripts/demo/**/*.test.ts",
  "console/e2e/**/*.test.ts",
];
const NOT_ON_POSTGRES = [
  "server/store/sqlite/**",
  "server/store/postgres/**",
  "server/store/contract/**",
  "server/store/migrate/**",
];

export default defineConfig({
  test: {
    exclude: onPostgres ? [...configDefaults.exclude, ...NOT_ON_POSTGRES] : configDefaults.exclude,
    include: onPostgres
      ? POSTGRES_RUN
      : [
          "server/**/*.test.ts",
          "agent/**/*.test.ts",
          "shared/**/*.test.ts",
          "scripts/**/*.test.ts",
          "installers/**/*.test.ts",
          "systemd/**/*.test.ts",
          "console/**/*.test.ts",
        ],
    // The skip summary first: vitest's own summary stays the closing lines of the run.
    reporters: [new SkipSummaryReporter(), "default"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // CAUDAL_TEST_DATABASE=postgres: one throw-away PostgreSQL for the run's test servers.
    globalSetup: ["scripts/testing/postgres-global-setup.ts"],
  },
});
