import { getTableName, is } from "drizzle-orm";
import { PgTable, getTableConfig as pgTableConfig } from "drizzle-orm/pg-core";
import { SQLiteTable, getTableConfig as sqliteTableConfig } from "drizzle-orm/sqlite-core";
import * as pgSchema from "../postgres/schema/index.ts";
import * as sqliteSchema from "../sqlite/schema/index.ts";
import { type ConvertValue, converterFor } from "./column-map.ts";

/** One column as copied: its name (the same on both engines) and how a SQLite value becomes PostgreSQL's. */
export type ColumnPlan = {
  readonly name: string;
  /** PostgreSQL's type, for the batch insert's array parameter. */
  readonly pgType: string;
  /** Null: the SQLite driver value is PostgreSQL's as it is. */
  readonly convert: ConvertValue | null;
};

/** One table as copied: every column of the SQLite table, into its PostgreSQL twin. */
export type TablePlan = {
  readonly name: string;
  readonly columns: readonly ColumnPlan[];
  /** The primary key's columns, in key order (empty when the table has none). */
  readonly primaryKey: readonly string[];
  /** Tables its foreign keys name: copied before it. */
  readonly dependsOn: readonly string[];
};

const sqliteTables = () => Object.values(sqliteSchema).filter((v) => is(v, SQLiteTable));
const pgTables = () => Object.values(pgSchema).filter((v) => is(v, PgTable));

function planOf(lite: SQLiteTable, pgTables: Map<string, PgTable>): TablePlan {
  const config = sqliteTableConfig(lite);
  const pg = pgTables.get(config.name);
  if (!pg) throw new Error(`${config.name}: the PostgreSQL schema has no such table`);
  const pgColumns = new Map(pgTableConfig(pg).columns.map((c) => [c.name, c]));
  const columns = config.columns.map((column) => {
    const twin = pgColumns.get(column.name);
    if (!twin) throw new Error(`${config.name}.${column.name}: the PostgreSQL schema has no such column`);
    return {
      name: column.name,
      pgType: twin.getSQLType(),
      convert: converterFor(`${config.name}.${column.name}`, column, twin),
    };
  });
  const composite = config.primaryKeys[0]?.columns.map((c) => c.name);
  const primaryKey = composite ?? config.columns.filter((c) => c.primary).map((c) => c.name);
  const dependsOn = [
    ...new Set(config.foreignKeys.map((fk) => getTableName(fk.reference().foreignTable))),
  ].filter((name) => name !== config.name);
  return { name: config.name, columns, primaryKey, dependsOn };
}

/** Orders `plans` so that every table comes after the tables it names; ties keep schema order. */
function inDependencyOrder(plans: TablePlan[]): TablePlan[] {
  const byName = new Map(plans.map((p) => [p.name, p]));
  const ordered: TablePlan[] = [];
  const state = new Map<string, "visiting" | "done">();
  const visit = (plan: TablePlan, path: string[]) => {
    if (state.get(plan.name) === "done") return;
    if (state.get(plan.name) === "visiting") {
      throw new Error(`foreign keys form a cycle: ${[...path, plan.name].join(" → ")}`);
    }
    state.set(plan.name, "visiting");
    for (const name of plan.dependsOn) {
      const parent = byName.get(name);
      if (!parent) throw new Error(`${plan.name} names ${name}, which the SQLite schema does not have`);
      visit(parent, [...path, plan.name]);
    }
    state.set(plan.name, "done");
    ordered.push(plan);
  };
  for (const plan of plans) visit(plan, []);
  return ordered;
}

/**
 * Every table of the SQLite schema (server/store/sqlite/schema), each mapped onto its PostgreSQL
 * twin column by column, in an order that inserts parents before children. Derived from the two
 * drizzle schemas, so a table or column added to them is copied without another change here; one
 * that has no twin, or no known conversion, stops the plan.
 */
export function migrationPlan(): TablePlan[] {
  const twins = new Map(pgTables().map((t) => [getTableName(t), t]));
  return inDependencyOrder(sqliteTables().map((t) => planOf(t, twins)));
}

/** Every table the PostgreSQL schema declares (those only PostgreSQL has included). */
export function postgresTableNames(): string[] {
  return pgTables().map((t) => getTableName(t));
}
