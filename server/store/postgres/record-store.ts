import {
  and,
  asc,
  desc,
  eq,
  getTableName,
  gt,
  gte,
  inArray,
  isNull,
  lt,
  lte,
  or,
  type SQL,
  sql,
} from "drizzle-orm";
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

/** All but the report's reads (currentIn, meterReadingAtOrBefore), which are not on PostgreSQL yet. */
/** The row is current: no row of its table names it in `supersedes` (served by the unique index on it). */
const current = (table: RecordTable): SQL => {
  const outer = sql.identifier(getTableName(table));
  return sql`NOT EXISTS (SELECT 1 FROM ${table} AS successor WHERE successor.supersedes = ${outer}.id)`;
};

export class PostgresRecordStore implements Omit<RecordStore, "currentIn" | "meterReadingAtOrBefore"> {
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
    const executor = this.#s.executor();
    // The target's row lock (FOR UPDATE locks; it does not update, so the append-only trigger
    // stays quiet), then the read in a statement of its own: at READ COMMITTED it sees the
    // correction of a transaction that held the lock before, not the snapshot taken before waiting.
    if (this.#s.inTransaction()) {
      await executor
        .select({ id: table.id })
        .from(table)
        .where(and(eq(table.id, id), eq(table.projectId, projectId)))
        .for("update");
    }
    const [target] = await executor
      .select({ supersededBy: successorOf(table) })
      .from(table)
      .where(and(eq(table.id, id), eq(table.projectId, projectId)))
      .limit(1);
    return target && { supersededBy: target.supersededBy ?? null };
  }

  async currentIn<K extends RecordKind>(
    kind: K,
    projectId: string,
    from: Date,
    to: Date,
  ): Promise<RecordRows[K][]> {
    const { table, instant } = recordTables[kind];
    const window =
      kind === "downtime"
        ? and(lt(downtime.startedAt, to), or(isNull(downtime.endedAt), gt(downtime.endedAt, from)))
        : and(gte(instant, from), lt(instant, to));
    return rowsOfKind<K>(
      await this.#s
        .executor()
        .select()
        .from(table)
        .where(and(eq(table.projectId, projectId), window, current(table)))
        .orderBy(asc(instant), asc(table.id)),
    );
  }

  async meterReadingAtOrBefore(projectId: string, meterId: string, at: Date) {
    const [row] = await this.#s
      .executor()
      .select()
      .from(meterReadings)
      .where(
        and(
          eq(meterReadings.projectId, projectId),
          eq(meterReadings.meterId, meterId),
          lte(meterReadings.readAt, at),
          current(meterReadings),
        ),
      )
      .orderBy(desc(meterReadings.readAt), desc(meterReadings.id))
      .limit(1);
    return row;
  }

  async assetTypeIn(projectId: string, assetId: string) {
    const query = this.#s
      .executor()
      .select({ assetType: assets.assetType })
      .from(assets)
      .where(and(eq(assets.id, assetId), eq(assets.projectId, projectId)))
      .limit(1);
    const [row] = this.#s.inTransaction() ? await query.for("key share") : await query;
    return row?.assetType;
  }
}
