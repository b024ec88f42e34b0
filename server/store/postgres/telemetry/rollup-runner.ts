import { BlockCache } from "../../telemetry/blocks.ts";
import { PgPoints } from "./points.ts";
import type { Query } from "./query.ts";
import { type RolledUp, type RollupItem, rollUpMany } from "./rollup-batch.ts";
import {
  ROLLUP_ROWS_PER_TRANSACTION,
  ROLLUP_SERIES_PER_TRANSACTION,
  type RollupState,
  readRollupState,
  rollUpSeries,
} from "./rollups.ts";

/** Runs `work` in a transaction of its own, on one connection. */
export type InTransaction = <T>(work: (query: Query) => Promise<T>) => Promise<T>;

/** A telemetry_series row as the roll-up needs it: [id, last_ts, rolled_to]. */
export type SeriesMark = [id: number, lastTs: number | null, rolledTo: number | null];

/**
 * The series' state from its stored watermark, or read back from the tables (and then `derived`:
 * worth storing unless it has a bucket to rebuild).
 */
export async function stateOfSeries(
  query: Query,
  points: PgPoints,
  [id, lastTs, rolledTo]: SeriesMark,
): Promise<{ state: RollupState; pending: boolean; derived: boolean }> {
  if (rolledTo !== null) {
    return {
      state: { rolledTo, replaceFrom: null },
      pending: lastTs !== null && lastTs >= rolledTo,
      derived: false,
    };
  }
  return { ...(await readRollupState(query, points, id)), derived: true };
}

const PENDING = `SELECT id::float8 FROM telemetry_series
  WHERE last_ts IS NOT NULL AND (rolled_to IS NULL OR last_ts >= rolled_to)`;

/**
 * Keeps the rollups up to date, as SQLite's RollupTracker does, with its watermark stored
 * (telemetry_series.rolled_to) instead of held in memory: every server of a database sees the
 * same one. A series is pending when it has a stored reading at or after its watermark
 * (last_ts ≥ rolled_to). Every transaction that changes a series' readings or rollups first
 * locks its telemetry_series row (FOR NO KEY UPDATE, in id order): writes, roll-ups and packing
 * of one series take turns, so a watermark read under the lock is the truth.
 */
export class PgRollupRunner {
  readonly #inTransaction: InTransaction;
  readonly #batched: boolean;
  readonly #cache = new BlockCache(16);

  /** `batched` false: always series by series (tests compare both ways). */
  constructor(inTransaction: InTransaction, options: { batched?: boolean } = {}) {
    this.#inTransaction = inTransaction;
    this.#batched = options.batched ?? true;
  }

  /** Rolls these series up completely, now, in SQLite's order and transaction budget. */
  async rollUp(seriesIds: readonly number[], shouldStop: () => boolean = () => false): Promise<void> {
    const ids = [...new Set(seriesIds)];
    if (ids.length === 0) return;
    let todo = await this.#pendingAmong(ids);
    while (todo.length > 0 && !shouldStop()) {
      const finished = await this.#rollUpChunk(todo.slice(0, ROLLUP_SERIES_PER_TRANSACTION));
      todo = todo.filter((id) => !finished.has(id));
    }
  }

  /** Rolls up every pending series, by id, yielding between transactions. */
  async rollUpAll(shouldStop: () => boolean = () => false): Promise<void> {
    const ids = await this.#inTransaction((query) =>
      query<[number]>(`${PENDING} ORDER BY telemetry_series.id`).then((rows) => rows.map((r) => r[0])),
    );
    await this.rollUp(ids, shouldStop);
  }

  /** Of these series, those pending, in the order given. */
  async #pendingAmong(ids: readonly number[]): Promise<number[]> {
    return this.#inTransaction(async (query) => {
      const points = new PgPoints(query, this.#cache);
      const rows = await query<SeriesMark>(
        "SELECT id::float8, last_ts::float8, rolled_to::float8 FROM telemetry_series WHERE id = ANY($1::bigint[])",
        [ids],
      );
      const pending = new Set<number>();
      for (const row of rows) if ((await stateOfSeries(query, points, row)).pending) pending.add(row[0]);
      return ids.filter((id) => pending.has(id));
    });
  }

  /** One roll-up transaction over `ids` (in order), up to the row budget. Returns the series done. */
  async #rollUpChunk(ids: readonly number[]): Promise<Set<number>> {
    return this.#inTransaction(async (query) => {
      const points = new PgPoints(query, this.#cache);
      const rows = await query<SeriesMark>(
        `SELECT id::float8, last_ts::float8, rolled_to::float8 FROM telemetry_series WHERE id = ANY($1::bigint[])
          ORDER BY telemetry_series.id FOR NO KEY UPDATE`,
        [ids],
      );
      const marks = new Map(rows.map((r) => [r[0], r]));
      const finished = new Set<number>();
      const stored: [number, number][] = [];
      const items: RollupItem[] = [];
      for (const id of ids) {
        const mark = marks.get(id);
        if (!mark) {
          finished.add(id); // the series is gone
          continue;
        }
        const { state, pending, derived } = await stateOfSeries(query, points, mark);
        if (pending) items.push({ id, state });
        else {
          finished.add(id);
          if (derived && state.replaceFrom === null) stored.push([id, state.rolledTo]);
        }
      }
      const results = await this.#rollUpItems(query, points, items);
      for (const r of results) {
        const lastTs = marks.get(r.id)?.[1] ?? null;
        if (r.done) {
          finished.add(r.id);
          // Every stored reading is in: the newest one (last_ts) is, and no reading is older than it.
          stored.push([r.id, lastTs === null ? r.state.rolledTo : Math.max(r.state.rolledTo, lastTs + 1)]);
        } else {
          stored.push([r.id, r.state.rolledTo]);
        }
      }
      await storeWatermarks(query, stored);
      return finished;
    });
  }

  /** The pending items' roll-ups in one go (rollup-batch.ts), else series by series, budget shared in order. */
  async #rollUpItems(query: Query, points: PgPoints, items: readonly RollupItem[]): Promise<RolledUp[]> {
    if (items.length === 0) return [];
    const many = this.#batched ? await rollUpMany(query, items, ROLLUP_ROWS_PER_TRANSACTION) : undefined;
    if (many) return many;
    const out: RolledUp[] = [];
    let budget = ROLLUP_ROWS_PER_TRANSACTION;
    for (const { id, state } of items) {
      if (budget <= 0) break;
      const r = await rollUpSeries(query, points, id, state, budget);
      budget -= r.rows;
      out.push({ id, ...r });
    }
    return out;
  }
}

/** Sets telemetry_series.rolled_to: [series id, watermark] pairs. */
export async function storeWatermarks(query: Query, marks: readonly [number, number][]): Promise<void> {
  if (marks.length === 0) return;
  await query(
    `UPDATE telemetry_series s SET rolled_to = v.rolled_to
       FROM unnest($1::bigint[], $2::bigint[]) AS v(id, rolled_to) WHERE s.id = v.id`,
    [marks.map((m) => m[0]), marks.map((m) => m[1])],
  );
}
