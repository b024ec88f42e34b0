import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { drizzle } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase } from "./client.ts";
import { migrationsBefore } from "./testing/migrations-before.ts";

const TAG = "every_project_has_a_plan";

describe(`migration …${TAG}`, () => {
  let dir = "";
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("puts every project without a subscription on starter and leaves set plans alone", () => {
    dir = mkdtempSync(join(tmpdir(), "caudal-plan-migration-"));
    const file = join(dir, "caudal.db");
    const before = new Database(file);
    migrate(drizzle(before), { migrationsFolder: migrationsBefore(dir, TAG) });
    const insertProject = before.prepare(
      "INSERT INTO projects (id, name, created_at, updated_at) VALUES (?, ?, 1, 1)",
    );
    insertProject.run("p-none", "No plan");
    insertProject.run("p-pro", "Professional");
    before
      .prepare(
        "INSERT INTO subscriptions (project_id, plan, started_at, updated_at) VALUES ('p-pro', 'professional', 5, 5)",
      )
      .run();
    before.close();

    const t0 = Date.now();
    const after = openDatabase(file);
    try {
      const rows = after.sqlite
        .prepare("SELECT project_id, plan, started_at, updated_at FROM subscriptions ORDER BY project_id")
        .all() as { project_id: string; plan: string; started_at: number; updated_at: number }[];
      expect(rows.map((r) => [r.project_id, r.plan])).toEqual([
        ["p-none", "starter"],
        ["p-pro", "professional"],
      ]);
      // The default subscription starts when the migration gives it, as epoch milliseconds.
      const given = rows[0];
      expect(given?.started_at).toBeGreaterThanOrEqual(Math.floor(t0 / 1000) * 1000);
      expect(given?.started_at).toBeLessThanOrEqual(Date.now());
      expect(given?.updated_at).toBe(given?.started_at);
      expect(rows[1]?.started_at).toBe(5);
    } finally {
      after.close();
    }
  });
});
