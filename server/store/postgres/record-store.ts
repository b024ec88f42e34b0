import { and, desc, eq, getTableName, gte, inArray, lt, type SQL, sql } from "drizzle-orm";
import type {
  ListedRecord,
  NewRecordRows,
  RecordKind,
  RecordListFilter,
  RecordRows,
  RecordStore,
} from "../ports/record-store.ts";
import { assets, downtime, labResults, meterReadings, movements, wellTests } from "./schema/index.ts";
import type { PgSession } from "./session.ts";

/** Each kind's table and its own instant, which lists filter and order by. */
const recordTables = {
  movement: { table: movements, instant: movements.timestamp },
  downtime: { table: downtime, instant: downtime.startedAt },
  well_test: { table: wellTests, instant: wellTests.testDate },
  lab_result: { table: labResults, instant: labResults.sampleDate },
  meter_reading: { table: meterReadings, instant: meterReadings.readAt },
} as const;

type RecordTable = (typeof recordTables)[RecordKind]["table"];

/**
 * TypeScript cannot follow a kind to its own table's row type through the table map; every row
 * read or written for `kind` is a row of `recordTables[kind].table`, so the type is that kind's.
 */
function rowsOfKind<K extends RecordKind>(rows: unknown): RecordRows[K][] {
  return rows as RecordRows[K][];
}

/**
 * The id of the row of the same table whose `supersedes` names this one (the unique index on
 * `supersedes` makes it one lookup). A subquery, so that it reads the list's own snapshot.
 */
const successorOf = (table: RecordTable) => {
  // Qualified by hand: drizzle leaves the columns of a one-table query unqualified, and inside
  // the subquery a bare "id" would be the successor's own.
  const outer = sql.identifier(getTableName(table));
  return sql<
    string | null
  >`(SELECT successor.id FROM ${table} AS successor WHERE successor.supersedes = ${outer}.id)`;
};

export class PostgresRecordStore implements RecordStore {
  readonly #s: PgSession;

  constructor(session: PgSession) {
    this.#s = session;
  }

  async append<K extends RecordKind>(kind: K, row: NewRecordRows[K]): Promise<RecordRows[K]> {
    const { table } = recordTables[kind];
    const [stored] = rowsOfKind<K>(await this.#s.executor().insert(table).values(row).returning());
    if (!stored) throw new Error(`${kind}: the insert returned no row`);
    return stored;
  }

  async list<K extends RecordKind>(kind: K, filter: RecordListFilter): Promise<ListedRecord<K>[]> {
    if (filter.projectIds?.length === 0) return [];
    const { table, instant } = recordTables[kind];
    const conditions: SQL[] = [];
    if (filter.projectIds) conditions.push(inArray(table.projectId, [...filter.projectIds]));
    if (filter.from) conditions.push(gte(instant, filter.from));
    if (filter.to) conditions.push(lt(instant, filter.to));
    const listed = await this.#s
      .executor()
      .select({ row: table, supersededBy: successorOf(table) })
      .from(table)
      .where(and(...conditions))
      .orderBy(desc(instant), desc(table.createdAt), desc(table.id))
      .limit(filter.limit);
    const rows = rowsOfKind<K>(listed.map((r) => r.row));
    return rows.map((row, i) => ({ row, supersededBy: listed[i]?.supersededBy ?? null }));
  }

  async correctionTarget(kind: RecordKind, id: string, projectId: string) {
    const { table } = recordTables[kind];
    const [target] = await this.#s
      .executor()
      .select({ supersededBy: successorOf(table) })
      .from(table)
      .where(and(eq(table.id, id), eq(table.projectId, projectId)))
      .limit(1);
    return target && { supersededBy: target.supersededBy ?? null };
  }

  async assetTypeIn(projectId: string, assetId: string) {
    const [row] = await this.#s
      .executor()
      .select({ assetType: assets.assetType })
      .from(assets)
      .where(and(eq(assets.id, assetId), eq(assets.projectId, projectId)))
      .limit(1);
    return row?.assetType;
  }
}
