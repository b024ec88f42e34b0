import { pgTable, text as pgText } from "drizzle-orm/pg-core";
import { real, sqliteTable } from "drizzle-orm/sqlite-core";
import { describe, expect, it } from "vitest";
import { openDatabase } from "../sqlite/client.ts";
import { converterFor } from "./column-map.ts";
import { migrationPlan } from "./plan.ts";

/** Every table a migrated SQLite database has, as SQLite lists them (not the schema files). */
function sqliteTables(): string[] {
  const handle = openDatabase(":memory:");
  try {
    return handle.sqlite
      .prepare<[], string>(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '__drizzle%' ORDER BY name",
      )
      .pluck()
      .all();
  } finally {
    handle.close();
  }
}

describe("the migration's table plan", () => {
  const plan = migrationPlan();

  it("copies every table of the SQLite database, each once", () => {
    const planned = plan.map((p) => p.name);
    expect([...planned].sort()).toEqual(sqliteTables());
    expect(new Set(planned).size).toBe(planned.length);
  });

  it("copies every column of each table", () => {
    const handle = openDatabase(":memory:");
    try {
      for (const table of plan) {
        const columns = handle.sqlite
          .prepare<[], string>(`SELECT name FROM pragma_table_info('${table.name}')`)
          .pluck()
          .all();
        expect(table.columns.map((c) => c.name).sort(), table.name).toEqual(columns.sort());
      }
    } finally {
      handle.close();
    }
  });

  it("puts every table after the tables its foreign keys name", () => {
    const position = new Map(plan.map((p, i) => [p.name, i]));
    for (const table of plan) {
      for (const parent of table.dependsOn) {
        expect(position.get(parent), `${parent} before ${table.name}`).toBeLessThan(
          position.get(table.name) ?? -1,
        );
      }
    }
    expect(plan.find((p) => p.name === "refresh_tokens")?.dependsOn).toEqual(["sessions"]);
  });

  it("converts flags and instants through the two schemas, and passes text (JSON included) as it is", () => {
    const users = plan.find((p) => p.name === "users");
    const column = (name: string) => users?.columns.find((c) => c.name === name);
    expect(column("is_active")?.convert?.(1)).toBe(true);
    expect(column("is_active")?.convert?.(0)).toBe(false);
    expect(column("created_at")?.convert?.(1_700_000_000_123)).toBe(1_700_000_000_123);
    expect(column("email")?.convert).toBeNull();
    expect(
      plan.find((p) => p.name === "audit_log")?.columns.find((c) => c.name === "after")?.convert,
    ).toBeNull();
  });

  it("refuses a column pairing it has no conversion for", () => {
    const lite = sqliteTable("t", { v: real("v") });
    const pg = pgTable("t", { v: pgText("v") });
    expect(() => converterFor("t.v", lite.v, pg.v)).toThrow(
      "t.v: no known conversion from SQLite SQLiteReal to PostgreSQL text",
    );
  });
});
