import { BUCKET_5M_MS } from "../../telemetry/buckets.ts";
import type { Sqlite } from "../client.ts";
import { FoldedReadings } from "./folded-readings.ts";
import {
  mergeBuckets,
  type RollupState,
  RollupStatements,
  readRollupState,
  rollUpSeries,
} from "./rollups.ts";

/** Raw rows read per roll-up transaction: short enough not to hold up ingest. */
export const ROLLUP_ROWS_PER_TRANSACTION = 5_000;

/**
 * Series per roll-up transaction. Each costs about 50 µs however few its new rows (two range
 * reads, an upsert, the hour's re-derivation: measured on a 2-core VM), so with 10,000 live series
 * a row budget alone made transactions of 200 ms to 2 s, and every live commit waited behind them.
 */
export const ROLLUP_SERIES_PER_TRANSACTION = 200;

/**
 * Keeps the 5-minute and hourly rollups up to date without touching them on every commit.
 *
 * Live readings (newer than their series' watermark) are only written raw; their series is
 * marked pending and a roll-up pass folds the new raw rows into the rollups later (every 10 s,
 * before any history read of that series, and at shutdown). A commit thus dirties one page per
 * series instead of three, which is what bounds ingest (DESIGN.md, Storage). Readings older than
 * the watermark (backfill) are merged into the rollups in their own commit.
 *
 * A series that was rolled up when a commit deferred readings of it also keeps them folded in
 * memory (FoldedReadings, added by every later commit), and its roll-up merges those buckets
 * without reading anything back. Any doubt that memory holds every stored reading from the
 * watermark on (a series pending since a restart, a roll-up cut short, another process's commit,
 * a deleted series), or that its sums are the read-back's (a commit with readings older than those
 * folded), drops it, and the pass reads the readings back as before.
 *
 * Nothing of this is stored: after a restart each series' state is read back from the rollups and
 * raw rows themselves (readRollupState), so a crash between a commit and its roll-up loses nothing,
 * and since rollups are derived from raw rows, which are unique per millisecond, nothing is ever
 * counted twice.
 */
export class RollupTracker {
  readonly #sqlite: Sqlite;
  readonly #stmts: RollupStatements;
  readonly #states = new Map<number, RollupState>();
  readonly #pending = new Set<number>();
  /** Pending series whose deferred readings are all folded in memory. */
  readonly #folded = new Map<number, FoldedReadings>();

  readonly #beforeRollUp: () => void;

  /**
   * `beforeRead`: see SeriesPoints (the telemetry service's empties the inbox); `beforeRollUp`
   * runs first in every roll-up transaction (the service's looks for other processes' commits,
   * and calls unfoldAll() when it finds one).
   */
  constructor(sqlite: Sqlite, beforeRead?: () => void, beforeRollUp: () => void = () => undefined) {
    this.#sqlite = sqlite;
    this.#stmts = new RollupStatements(sqlite, beforeRead);
    this.#beforeRollUp = beforeRollUp;
  }

  get statements(): RollupStatements {
    return this.#stmts;
  }

  get pendingSeries(): number {
    return this.#pending.size;
  }

  /** The series' committed state, read from the database on first use. */
  stateOf(seriesId: number): RollupState {
    const known = this.#states.get(seriesId);
    if (known) return known;
    const { state, pending } = readRollupState(this.#stmts, seriesId);
    this.#states.set(seriesId, state);
    if (pending) this.#pending.add(seriesId);
    return state;
  }

  /** Whether the series has stored readings not rolled up yet. */
  isPending(seriesId: number): boolean {
    return this.#pending.has(seriesId);
  }

  /**
   * A commit rolled the series' readings up itself, and every stored reading before `rolledTo`
   * is now in the rollups (call after the commit; only for a series that was not pending).
   */
  rolledUpTo(seriesId: number, rolledTo: number): void {
    const state = this.stateOf(seriesId);
    if (rolledTo > state.rolledTo) this.#states.set(seriesId, { rolledTo, replaceFrom: state.replaceFrom });
  }

  /** The series has stored readings at or after the watermark that are to be read back. */
  markPending(seriesId: number): void {
    this.#folded.delete(seriesId);
    this.#pending.add(seriesId);
  }

  /**
   * A commit stored readings at or after the watermark (call after the commit): `from` is the
   * watermark that commit saw; `ts` (ascending) and `values`, those readings.
   */
  deferred(seriesId: number, from: number, ts: readonly number[], values: readonly number[]): void {
    const state = this.stateOf(seriesId);
    if (state.rolledTo !== from) {
      // A roll-up ran between the commit and this call and may have counted some of these
      // readings and not others: the buckets from the first of them on are rebuilt from storage.
      const t = ts[0] ?? from;
      const first = t - (t % BUCKET_5M_MS);
      const replaceFrom = Math.min(state.replaceFrom ?? first, first);
      this.#states.set(seriesId, { rolledTo: state.rolledTo, replaceFrom });
      this.markPending(seriesId);
      return;
    }
    const folded = this.#folded.get(seriesId);
    if (folded) {
      // Older than readings already folded: their sums could no longer be added in ts order.
      if (!folded.add(ts, values)) this.#folded.delete(seriesId);
    } else if (!this.#pending.has(seriesId) && state.replaceFrom === null) {
      // Nothing stored from the watermark on but these readings: memory holds them all.
      const fresh = new FoldedReadings(from);
      if (fresh.add(ts, values)) this.#folded.set(seriesId, fresh);
    }
    this.#pending.add(seriesId);
  }

  /** Another process may have written readings: every pending series is read back. */
  unfoldAll(): void {
    this.#folded.clear();
  }

  forget(seriesId: number): void {
    this.#states.delete(seriesId);
    this.#pending.delete(seriesId);
    this.#folded.delete(seriesId);
  }

  clear(): void {
    this.#states.clear();
    this.#pending.clear();
    this.#folded.clear();
  }

  /** One roll-up transaction over pending series, up to `maxRows` raw rows. True when none remain. */
  step(maxRows = ROLLUP_ROWS_PER_TRANSACTION): boolean {
    if (this.#pending.size === 0) return true;
    const ids: number[] = [];
    for (const id of this.#pending) {
      ids.push(id);
      if (ids.length === ROLLUP_SERIES_PER_TRANSACTION) break;
    }
    this.#rollUp(ids, maxRows);
    return this.#pending.size === 0;
  }

  /** Rolls the given series up completely, now (history reads call this first). */
  ensure(seriesIds: readonly number[]): void {
    for (const id of seriesIds) this.stateOf(id);
    let todo = seriesIds.filter((id) => this.#pending.has(id));
    while (todo.length > 0) {
      this.#rollUp(todo.slice(0, ROLLUP_SERIES_PER_TRANSACTION), ROLLUP_ROWS_PER_TRANSACTION);
      todo = todo.filter((id) => this.#pending.has(id));
    }
  }

  /** Rolls everything pending, yielding to the event loop between transactions. */
  async drain(shouldStop: () => boolean = () => false): Promise<void> {
    while (!shouldStop() && !this.step()) await new Promise((resolve) => setImmediate(resolve));
  }

  /** Reads the state of every series (after a restart), yielding between batches. */
  async scan(shouldStop: () => boolean = () => false): Promise<void> {
    const ids = this.#sqlite.prepare<[], number>("SELECT id FROM telemetry_series").pluck().all();
    for (let i = 0; i < ids.length; i++) {
      if (shouldStop()) return;
      const id = ids[i];
      if (id !== undefined) this.stateOf(id);
      if (i % 500 === 499) await new Promise((resolve) => setImmediate(resolve));
    }
  }

  #rollUp(seriesIds: readonly number[], maxRows: number): void {
    const results: { id: number; state: RollupState; done: boolean }[] = [];
    this.#sqlite
      .transaction(() => {
        this.#beforeRollUp();
        let budget = maxRows;
        for (const id of seriesIds) {
          if (budget <= 0) break;
          const state = this.stateOf(id);
          const folded = this.#folded.get(id);
          if (folded && state.replaceFrom === null && state.rolledTo === folded.from) {
            mergeBuckets(this.#stmts, id, folded.buckets);
            budget -= folded.buckets.length;
            results.push({ id, state: { rolledTo: folded.newest + 1, replaceFrom: null }, done: true });
            continue;
          }
          const r = rollUpSeries(this.#stmts, id, state, budget);
          budget -= r.rows;
          results.push({ id, state: r.state, done: r.done });
        }
      })
      .immediate();
    for (const r of results) {
      this.#states.set(r.id, r.state);
      this.#folded.delete(r.id);
      if (r.done) this.#pending.delete(r.id);
    }
  }
}
