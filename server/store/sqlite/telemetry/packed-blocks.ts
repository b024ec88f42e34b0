import type { Statement } from "better-sqlite3";
import type { BlockKey, BlockRow } from "../../telemetry/blocks.ts";
import type { Sqlite } from "../client.ts";

export type RangeParams = { series: number; from: number; to: number };

/**
 * Read statements on telemetry_packed. Blocks of a series never overlap, so the one block that
 * can hold `from` is the last one starting at or before it: each range read seeks to it and walks
 * on through the primary key.
 */
export class PackedReads {
  /** Blocks overlapping [from, to], ascending. */
  readonly ascending: Statement<[RangeParams], BlockRow>;
  /** Blocks overlapping [from, to], newest first. */
  readonly descending: Statement<[RangeParams], BlockRow>;
  /** The key of the block holding `ts`, if any (its last_ts still to be checked). */
  readonly atOrBefore: Statement<[number, number], BlockKey>;
  /** A block's data: [series, first_ts]. */
  readonly data: Statement<[number, number], Uint8Array>;
  /** Points and newest last_ts of the blocks starting at or after a ts. */
  readonly startingFrom: Statement<[number, number], [number, number | null]>;

  constructor(sqlite: Sqlite) {
    const overlapping = `SELECT first_ts, last_ts, count, data FROM telemetry_packed
       WHERE series_id = @series AND first_ts <= @to AND last_ts >= @from AND first_ts >= coalesce(
         (SELECT max(first_ts) FROM telemetry_packed WHERE series_id = @series AND first_ts <= @from), @from)`;
    this.ascending = sqlite.prepare<[RangeParams], BlockRow>(`${overlapping} ORDER BY first_ts`).raw();
    this.descending = sqlite.prepare<[RangeParams], BlockRow>(`${overlapping} ORDER BY first_ts DESC`).raw();
    // Keys only: a point lookup (a late reading's duplicate check) mostly finds its block cached.
    this.atOrBefore = sqlite
      .prepare<[number, number], BlockKey>(
        `SELECT first_ts, last_ts, count FROM telemetry_packed
         WHERE series_id = ? AND first_ts <= ? ORDER BY first_ts DESC LIMIT 1`,
      )
      .raw();
    this.data = sqlite
      .prepare<[number, number], Uint8Array>(
        "SELECT data FROM telemetry_packed WHERE series_id = ? AND first_ts = ?",
      )
      .pluck();
    this.startingFrom = sqlite
      .prepare<[number, number], [number, number | null]>(
        "SELECT coalesce(sum(count), 0), max(last_ts) FROM telemetry_packed WHERE series_id = ? AND first_ts >= ?",
      )
      .raw();
  }
}
