import { defineConfig } from "vitest/config";
import { SkipSummaryReporter } from "./scripts/testing/skip-summary.ts";

export default defineConfig({
  test: {
    include: [
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
