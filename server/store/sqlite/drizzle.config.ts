import { defineConfig } from "drizzle-kit";

/** The SQLite adapter's schema and migrations (PostgreSQL's: server/store/postgres/drizzle.config.ts). */
export default defineConfig({
  dialect: "sqlite",
  schema: "./server/store/sqlite/schema/index.ts",
  out: "./server/store/sqlite/migrations",
});
