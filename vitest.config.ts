import { matchesGlob } from "node:path";
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

const include = onPostgres
  ? POSTGRES_RUN
  : [
      "server/**/*.test.ts",
      "agent/**/*.test.ts",
      "shared/**/*.test.ts",
      "scripts/**/*.test.ts",
      "installers/**/*.test.ts",
      "systemd/**/*.test.ts",
      "console/**/*.test.ts",
    ];
const exclude = onPostgres ? [...configDefaults.exclude, ...NOT_ON_POSTGRES] : configDefaults.exclude;

/*
 * A worker runs its test files one after another in one module graph (isolate: false): evaluating
 * the server's modules again for each file was most of the run (server/routes: 396 s isolated,
 * 97 s shared, on this 2-core machine). These files run in a graph of their own:
 * - a file that replaces a module (vi.mock), since a module another file loaded cannot be replaced;
 * - a file that starts snap7's S7 server in the test's process: node-snap7 keeps the server's two
 *   libuv handles in static variables, so two S7Server objects alive in one process share them and
 *   freeing both closes them twice, which aborts the process (uv_close: Assertion
 *   `!uv__is_closing(handle)', node_snap7_server.cpp; reproduced with two `new S7Server()` and
 *   --expose-gc);
 * - a file that runs node-opcua in the test's process: node-opcua-crypto sets OPENSSL_CONF for a
 *   moment and puts back what it read, so an unset one becomes the string "undefined"
 *   (process.env makes strings), and every later `openssl` of the process fails on that file
 *   (agent/trust-certificate.test.ts did, after an OPC UA test in its worker);
 * A process per file ends before either reaches another file.
 */
const ISOLATED = [
  "server/store/contract/store.contract.test.ts",
  "server/routes/telemetry/ingest-from-bytes.test.ts",
  "agent/drivers/s7/s7-driver.snap7.test.ts",
  "agent/e2e/s7.test.ts",
  "agent/e2e/test-read.test.ts",
  "agent/drivers/opcua/opcua-driver.test.ts",
  "agent/drivers/opcua/opcua-log.test.ts",
  "agent/e2e/opcua.test.ts",
  "agent/e2e/single-binary-chunks.test.ts",
  "console/e2e/agents.browser.test.ts",
  "scripts/sim/plc-simulator.test.ts",
];

export default defineConfig({
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: "shared",
          include,
          exclude: [...exclude, ...ISOLATED],
          isolate: false,
          // Each file ends with the environment it started with (a library may change it).
          setupFiles: ["scripts/testing/restore-env.ts"],
        },
      },
      {
        extends: true,
        test: {
          name: "isolated",
          include: ISOLATED.filter((file) => include.some((glob) => matchesGlob(file, glob))),
          exclude,
          isolate: true,
        },
      },
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
