import { defineConfig } from "drizzle-kit";

/** The PostgreSQL adapter's schema and migrations (the SQLite ones: server/store/sqlite/drizzle.config.ts). */
export default defineConfig({
  dialect: "postgresql",
  schema: "./server/store/postgres/schema/index.ts",
  out: "./server/store/postgres/migrations",
});
