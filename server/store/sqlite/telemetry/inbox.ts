import type { Statement } from "better-sqlite3";
import type { Sqlite } from "../client.ts";
import { ChunkedAppend } from "./chunked-append.ts";
import type { YoungBlocks } from "./compact-blocks.ts";
import { type BlockWrites, writeBlocks } from "./raw-insert.ts";
import type { WriteStatements } from "./statements.ts";

/**
 * Rows in the inbox from which a commit's end schedules a move: at 200 series, ~40 readings each,
 * enough that most series move as one packed block.
 */
export const INBOX_MOVE_ROWS = 8_192;

/**
 * The telemetry inbox (table telemetry_inbox): new readings that make no block of their own land
 * here, in arrival order, and move to telemetry_raw, or to packed blocks, in bulk.
 *
 * Why: telemetry_raw is keyed by (series, ts), so a commit holding one reading each of 200 series
 * dirtied ~200 pages of it, and a commit writes every dirtied page to the WAL. Measured on this
 * tree's 2-core VM (SQLite, 600k stored rows, 150 readings a commit over 200 series): 14–27 µs a
 * reading straight into telemetry_raw, against 4–5 µs through an unindexed inbox, the move
 * included. Single POST /api/telemetry requests (20 readings of one asset) were bound by it.
 *
 * Invariant: an inbox row is newer than every stored point of its series when it lands (or lies
 * in a stretch that stores nothing, checked), so a (series, ts) in the inbox is stored nowhere
 * else. Whatever would break that empties the inbox first: a commit holding older readings, and
 * the retry path (writer.ts). Readers of stored points empty it first too (`settle`), so every
 * read sees every committed reading; so do retention, packing, roll-ups and shutdown.
 */
export class TelemetryInbox {
  readonly #stmts: WriteStatements;
  readonly #young: YoungBlocks;
  readonly #blockPoints: number;
  readonly #any: Statement<[], number>;
  readonly #all: Statement<[], [number, number, number]>;
  readonly #clear: Statement<[]>;
  readonly #move: () => BlockWrites;
  readonly #inTransaction: () => boolean;
  /** Rows appended since the last move, as commits counted them: a hint for when to move. */
  #appended = 0;
  /**
   * Series that got a block straight from a commit since the inbox was last emptied (in a
   * transaction of its own, so for good): only their inbox rows may have a stored point between
   * them. `all`: any may (after start-up, or another process's commits), until the next move.
   */
  #crossed: { all: boolean; series: Set<number> } = { all: true, series: new Set() };

  constructor(sqlite: Sqlite, stmts: WriteStatements, young: YoungBlocks, blockPoints: number) {
    this.#stmts = stmts;
    this.#young = young;
    this.#blockPoints = blockPoints;
    this.#any = sqlite.prepare<[], number>("SELECT 1 FROM telemetry_inbox LIMIT 1").pluck();
    this.#all = sqlite
      .prepare<[], [number, number, number]>(
        "SELECT series_id, ts, value FROM telemetry_inbox ORDER BY series_id, ts",
      )
      .raw();
    this.#clear = sqlite.prepare("DELETE FROM telemetry_inbox");
    const move = sqlite.transaction(() => this.#moveAll());
    this.#inTransaction = () => sqlite.inTransaction;
    // IMMEDIATE on its own: take the write lock up front; nested in the caller's transaction otherwise.
    this.#move = () => (sqlite.inTransaction ? move() : move.immediate());
  }

  /** A commit put `rows` rows in the inbox and wrote blocks of `blockSeries` (call after it committed). */
  committed(rows: number, blockSeries: Iterable<number>): void {
    this.#appended += rows;
    if (this.#crossed.all) return;
    for (const id of blockSeries) this.#crossed.series.add(id);
  }

  /** Blocks may have been written that this process did not see (another process committed). */
  suspectAll(): void {
    this.#crossed.all = true;
  }

  /** Enough rows wait for a move to be worth its own transaction. */
  get due(): boolean {
    return this.#appended >= INBOX_MOVE_ROWS;
  }

  /**
   * Moves every inbox row to telemetry_raw or packed blocks, in the caller's transaction when
   * there is one, else in its own. Asks the table itself, so it is right after any rollback or
   * restart; an empty inbox costs one page read.
   */
  readonly settle = (): void => {
    if (this.#any.get() === undefined) {
      this.#appended = 0;
      return;
    }
    const nested = this.#inTransaction();
    const blocks = this.#move();
    this.#appended = 0;
    // Nested, the move may yet be rolled back with the caller's transaction: keep the list.
    if (!nested) this.#crossed = { all: false, series: new Set() };
    // A hint only (the packer joins what it finds), so noting inside an outer transaction is harmless.
    for (const [seriesId, firstTs] of blocks.firstTsBySeries) this.#young.note(seriesId, firstTs);
  };

  /**
   * Each series' rows (ts order): a packed block when there are `blockPoints` of them and their
   * stretch stores nothing (a block written straight from a commit may lie between inbox rows of
   * its series), else raw rows.
   */
  #moveAll(): BlockWrites {
    const rows = this.#all.all();
    const raw = new ChunkedAppend(this.#stmts.rawAppend);
    const blocks: BlockWrites = { blocks: 0, points: 0, firstTsBySeries: new Map(), inboxRows: 0 };
    const ts = new Float64Array(rows.length);
    const values = new Float64Array(rows.length);
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i];
      if (!row) continue;
      ts[i] = row[1];
      values[i] = row[2];
    }
    let start = 0;
    while (start < rows.length) {
      const series = rows[start]?.[0] ?? 0;
      let end = start + 1;
      while (end < rows.length && rows[end]?.[0] === series) end++;
      const count = end - start;
      const first = ts[start] ?? 0;
      const last = ts[end - 1] ?? 0;
      const mayCross = this.#crossed.all || this.#crossed.series.has(series);
      if (
        this.#blockPoints > 0 &&
        count >= this.#blockPoints &&
        (!mayCross || this.#stmts.isFree(series, first, last))
      ) {
        const indexes: number[] = [];
        for (let i = start; i < end; i++) indexes.push(i);
        writeBlocks(this.#stmts, series, indexes, ts, values, blocks);
      } else {
        for (let i = start; i < end; i++) raw.push(series, ts[i] ?? 0, values[i] ?? 0);
      }
      start = end;
    }
    raw.flush();
    this.#clear.run();
    return blocks;
  }
}
