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
import type { DbOrTx } from "./append-audit.ts";
import { assets, downtime, labResults, meterReadings, movements, wellTests } from "./schema/index.ts";
import type { SqliteSession } from "./session.ts";

/** Each kind's table and its own instant, which lists filter and order by. */
const recordTables = {
  movement: { table: movements, instant: movements.timestamp },
  downtime: { table: downtime, instant: downtime.startedAt },
  well_test: { table: wellTests, instant: wellTests.testDate },
  lab_result: { table: labResults, instant: labResults.sampleDate },
  meter_reading: { table: meterReadings, instant: meterReadings.readAt },
} as const;

type RecordTable = (typeof recordTables)[RecordKind]["table"];

/** Bounds an IN list well under SQLite's variable limit. */
const IN_CHUNK = 500;

/**
 * TypeScript cannot follow a kind to its own table's row type through the table map; every row
 * read or written for `kind` is a row of `recordTables[kind].table`, so the type is that kind's.
 */
function rowsOfKind<K extends RecordKind>(rows: unknown): RecordRows[K][] {
  return rows as RecordRows[K][];
}

export class SqliteRecordStore implements RecordStore {
  readonly #s: SqliteSession;

  constructor(session: SqliteSession) {
    this.#s = session;
  }

  append<K extends RecordKind>(kind: K, row: NewRecordRows[K]): Promise<RecordRows[K]> {
    return this.#s.gate.run(() => {
      const { table } = recordTables[kind];
      const [stored] = rowsOfKind<K>(this.#s.db.insert(table).values(row).returning().all());
      if (!stored) throw new Error(`${kind}: the insert returned no row`);
      return stored;
    });
  }

  list<K extends RecordKind>(kind: K, filter: RecordListFilter): Promise<ListedRecord<K>[]> {
    return this.#s.gate.run(() => {
      if (filter.projectIds?.length === 0) return [];
      const { table, instant } = recordTables[kind];
      const conditions: SQL[] = [];
      if (filter.projectIds) conditions.push(inArray(table.projectId, [...filter.projectIds]));
      if (filter.from) conditions.push(gte(instant, filter.from));
      if (filter.to) conditions.push(lt(instant, filter.to));
      const rows = rowsOfKind<K>(
        this.#s.db
          .select()
          .from(table)
          .where(and(...conditions))
          .orderBy(desc(instant), desc(table.createdAt), desc(table.id))
          .limit(filter.limit)
          .all(),
      );
      const successors = successorsOf(
        this.#s.db,
        table,
        rows.map((r) => r.id),
      );
      return rows.map((row) => ({ row, supersededBy: successors.get(row.id) ?? null }));
    });
  }

  correctionTarget(kind: RecordKind, id: string, projectId: string) {
    return this.#s.gate.run(() => {
      const { table } = recordTables[kind];
      const target = this.#s.db
        .select({ id: table.id })
        .from(table)
        .where(and(eq(table.id, id), eq(table.projectId, projectId)))
        .get();
      if (!target) return undefined;
      const successor = this.#s.db
        .select({ id: table.id })
        .from(table)
        .where(eq(table.supersedes, target.id))
        .get();
      return { supersededBy: successor?.id ?? null };
    });
  }

  currentIn<K extends RecordKind>(
    kind: K,
    projectId: string,
    from: Date,
    to: Date,
  ): Promise<RecordRows[K][]> {
    return this.#s.gate.run(() => {
      const { table, instant } = recordTables[kind];
      const window =
        kind === "downtime"
          ? and(lt(downtime.startedAt, to), or(isNull(downtime.endedAt), gt(downtime.endedAt, from)))
          : and(gte(instant, from), lt(instant, to));
      return rowsOfKind<K>(
        this.#s.db
          .select()
          .from(table)
          .where(and(eq(table.projectId, projectId), window, current(table)))
          .orderBy(asc(instant), asc(table.id))
          .all(),
      );
    });
  }

  meterReadingAtOrBefore(projectId: string, meterId: string, at: Date) {
    return this.#s.gate.run(() =>
      this.#s.db
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
        .limit(1)
        .get(),
    );
  }

  assetTypeIn(projectId: string, assetId: string) {
    return this.#s.gate.run(
      () =>
        this.#s.db
          .select({ assetType: assets.assetType })
          .from(assets)
          .where(and(eq(assets.id, assetId), eq(assets.projectId, projectId)))
          .get()?.assetType,
    );
  }
}

/** The row is current: no row of its table names it in `supersedes` (served by the unique index on it). */
function current(table: RecordTable): SQL {
  return sql`NOT EXISTS (SELECT 1 FROM ${sql.identifier(getTableName(table))} AS successor WHERE successor.supersedes = ${table.id})`;
}

/** For each record id, the id of the record that supersedes it (absent while it is current). */
function successorsOf(db: DbOrTx, table: RecordTable, ids: string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (let i = 0; i < ids.length; i += IN_CHUNK) {
    const chunk = ids.slice(i, i + IN_CHUNK);
    const rows = db
      .select({ id: table.id, supersedes: table.supersedes })
      .from(table)
      .where(inArray(table.supersedes, chunk))
      .all();
    for (const r of rows) if (r.supersedes) out.set(r.supersedes, r.id);
  }
  return out;
}
