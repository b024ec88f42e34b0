import type { Statement } from "better-sqlite3";
import { decodeBlock, type Points } from "../../telemetry-codec/block.ts";
import type { Sqlite } from "../client.ts";
import { DAY_MS } from "./buckets.ts";

/** Blocks never cross a UTC day: a block overlapping [from, to] starts after from − PACK_WINDOW_MS. */
const PACK_WINDOW_MS = DAY_MS;

/**
 * Points per block at most. Bounds a packing transaction (and so how long it holds the event
 * loop) and what a read of a few points decodes; at 1 Hz a block is about 68 minutes.
 */
export const MAX_BLOCK_POINTS = 4096;

/** What identifies a block's content: [first_ts, last_ts, count] (see BlockCache). */
export type BlockKey = [firstTs: number, lastTs: number, count: number];
/** One telemetry_packed row: [first_ts, last_ts, count, data]. */
export type BlockRow = [firstTs: number, lastTs: number, count: number, data: Uint8Array];

/** The UTC day holding `ts`: [start, end). */
export function windowOf(ts: number): { start: number; end: number } {
  const start = ts - (((ts % PACK_WINDOW_MS) + PACK_WINDOW_MS) % PACK_WINDOW_MS);
  return { start, end: start + PACK_WINDOW_MS };
}

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

/**
 * Decoded blocks, the most recently used kept. A block's key is its series, span and count: its
 * content never changes under the same key (points are never replaced; packing only adds points,
 * retention only removes the oldest, and either changes the span or the count).
 */
export class BlockCache {
  readonly #entries = new Map<string, Points>();
  readonly #capacity: number;

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  /** The block's points; `data` is the block row, or loads the block's data when not cached. */
  points(seriesId: number, block: BlockRow | BlockKey, data?: () => Uint8Array | undefined): Points {
    const key = `${seriesId}:${block[0]}:${block[1]}:${block[2]}`;
    const known = this.#entries.get(key);
    if (known) {
      this.#entries.delete(key);
      this.#entries.set(key, known);
      return known;
    }
    const bytes = block.length === 4 ? block[3] : data?.();
    if (!bytes) throw new Error(`packed block ${key} has no data`);
    const points = decodeBlock(bytes);
    this.#entries.set(key, points);
    if (this.#entries.size > this.#capacity) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
    return points;
  }
}

/** First index i with sorted[i] ≥ ts (sorted.length when none). */
export function lowerBound(sorted: Float64Array, ts: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((sorted[mid] ?? 0) < ts) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
