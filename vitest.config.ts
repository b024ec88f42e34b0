import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: [
      "server/**/*.test.ts",
      "agent/**/*.test.ts",
      "shared/**/*.test.ts",
      "scripts/**/*.test.ts",
      "installers/**/*.test.ts",
    ],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
});
