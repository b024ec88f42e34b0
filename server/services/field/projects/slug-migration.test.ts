import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { drizzle } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import { afterEach, describe, expect, it } from "vitest";
import { slugify } from "../../../../shared/field/slug.ts";
import { openDatabase } from "../../../store/sqlite/client.ts";

const MIGRATIONS = fileURLToPath(new URL("../../../store/sqlite/migrations", import.meta.url));
const TAG = "sparkplug_hmi";

type Journal = { entries: { tag: string }[] };

/** A copy of the migrations folder that stops just before the slug migration. */
function migrationsBefore(dir: string): string {
  const folder = join(dir, "migrations");
  cpSync(MIGRATIONS, folder, { recursive: true });
  const journalFile = join(folder, "meta", "_journal.json");
  const journal = JSON.parse(readFileSync(journalFile, "utf8")) as Journal;
  const at = journal.entries.findIndex((e) => e.tag.endsWith(TAG));
  expect(at, `a migration tagged …${TAG}`).toBeGreaterThan(0);
  writeFileSync(journalFile, JSON.stringify({ ...journal, entries: journal.entries.slice(0, at) }));
  return folder;
}

describe(`migration …${TAG}`, () => {
  let dir = "";
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("gives every existing project a unique slug derived from its name, as new projects get", () => {
    dir = mkdtempSync(join(tmpdir(), "caudal-slug-migration-"));
    const file = join(dir, "caudal.db");
    const before = new Database(file);
    migrate(drizzle(before), { migrationsFolder: migrationsBefore(dir) });
    const insert = before.prepare(
      "INSERT INTO projects (id, name, created_at, updated_at) VALUES (?, ?, ?, 1)",
    );
    const names: [string, string, number][] = [
      ["a1111111-0000-4000-8000-000000000001", "Campo Rubiales — Clúster 4", 1],
      ["b2222222-0000-4000-8000-000000000002", "campo rubiales: CLÚSTER 4", 2],
      ["c3333333-0000-4000-8000-000000000003", "¡¡¡", 3],
      ["d4444444-0000-4000-8000-000000000004", "PEÑA  Niño/ÁREA_2 ão ç", 4],
      ["e5555555-0000-4000-8000-000000000005", `${"x".repeat(70)} y`, 5],
    ];
    for (const [id, name, at] of names) insert.run(id, name, at);
    before.close();

    const after = openDatabase(file);
    try {
      const rows = after.sqlite
        .prepare(
          "SELECT id, slug, sparkplug_edge_node_id, sparkplug_primary_host_id FROM projects ORDER BY created_at",
        )
        .all() as {
        id: string;
        slug: string;
        sparkplug_edge_node_id: string;
        sparkplug_primary_host_id: string | null;
      }[];
      expect(rows.map((r) => r.slug)).toEqual([
        "campo-rubiales-cluster-4",
        // The older project keeps the plain slug; the newer one gets the start of its id.
        "campo-rubiales-cluster-4-b2222222",
        "project-c3333333",
        "pena-nino-area-2-ao-c",
        "x".repeat(64),
      ]);
      // The same rule as the application's, for the letters the migration folds.
      for (const [i, [, name]] of names.entries()) {
        if (i === 0 || i === 3 || i === 4) expect(rows[i]?.slug).toBe(slugify(name));
      }
      expect(
        rows.every((r) => r.sparkplug_edge_node_id === "agent" && r.sparkplug_primary_host_id === null),
      ).toBe(true);
      // Unique from now on.
      expect(() =>
        after.sqlite.prepare("UPDATE projects SET slug = 'project-c3333333' WHERE id = ?").run(names[0]?.[0]),
      ).toThrow(/UNIQUE/);
    } finally {
      after.close();
    }
  });
});
