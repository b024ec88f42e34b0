import type { Statement } from "better-sqlite3";
import { BlockCache, type BlockKey, lowerBound, mergePointRows } from "../../telemetry/blocks.ts";
import type { Points } from "../../telemetry/codec/block.ts";
import type { Sqlite } from "../client.ts";
import { PackedReads } from "./packed-blocks.ts";

/** [ts, value] */
export type PointRow = [number, number];

/*
 * A series' stored points, wherever they are: raw rows (recent readings, and late ones not yet
 * merged into their block) and packed blocks (cold readings), once the inbox has moved its rows
 * there (`beforeRead`). A (series, ts) lives in exactly one of the two, so the union holds each
 * point once; each read here merges both in ts order, and every reader of stored points goes
 * through it.
 */
export class SeriesPoints {
  readonly #rawAscending: Statement<[number, number, number, number], PointRow>;
  readonly #rawDescending: Statement<[number, number, number, number], PointRow>;
  readonly #rawFrom: Statement<[number, number], [number, number | null]>;
  readonly #packed: PackedReads;
  readonly #cache: BlockCache;
  readonly #beforeRead: () => void;

  /**
   * `beforeRead` runs before each read of raw points: the telemetry service's empties the inbox
   * (inbox.ts), whose rows this reader does not see.
   */
  constructor(sqlite: Sqlite, cache = new BlockCache(16), beforeRead: () => void = () => undefined) {
    const range = "SELECT ts, value FROM telemetry_raw WHERE series_id = ? AND ts >= ? AND ts <= ?";
    this.#rawAscending = sqlite
      .prepare<[number, number, number, number], PointRow>(`${range} ORDER BY ts LIMIT ?`)
      .raw();
    this.#rawDescending = sqlite
      .prepare<[number, number, number, number], PointRow>(`${range} ORDER BY ts DESC LIMIT ?`)
      .raw();
    this.#rawFrom = sqlite
      .prepare<[number, number], [number, number | null]>(
        "SELECT count(*), max(ts) FROM telemetry_raw WHERE series_id = ? AND ts >= ?",
      )
      .raw();
    this.#packed = new PackedReads(sqlite);
    this.#cache = cache;
    this.#beforeRead = beforeRead;
  }

  /** The first `limit` points in [fromMs, toMs], ascending. */
  ascending(seriesId: number, fromMs: number, toMs: number, limit: number): PointRow[] {
    this.#beforeRead();
    const raw = this.#rawAscending.all(seriesId, fromMs, toMs, limit);
    // With `limit` raw rows, only packed points before the last of them can be among the first.
    const to = raw.length === limit ? Math.min(toMs, (raw.at(-1)?.[0] ?? toMs) - 1) : toMs;
    const packed: PointRow[] = [];
    if (to < fromMs) return raw;
    for (const row of this.#packed.ascending.iterate({ series: seriesId, from: fromMs, to })) {
      const { ts, values } = this.#cache.points(seriesId, row);
      for (let i = lowerBound(ts, fromMs); i < ts.length && packed.length < limit; i++) {
        const t = ts[i] ?? 0;
        if (t > to) break;
        packed.push([t, values[i] ?? 0]);
      }
      if (packed.length >= limit) break;
    }
    return mergePointRows(raw, packed, limit, 1);
  }

  /** The last `limit` points in [fromMs, toMs], newest first. */
  descending(seriesId: number, fromMs: number, toMs: number, limit: number): PointRow[] {
    this.#beforeRead();
    const raw = this.#rawDescending.all(seriesId, fromMs, toMs, limit);
    // With `limit` raw rows, only packed points after the last of them can be among the newest:
    // recent readings are raw, so a read of them decodes no block.
    const from = raw.length === limit ? Math.max(fromMs, (raw.at(-1)?.[0] ?? fromMs) + 1) : fromMs;
    const packed: PointRow[] = [];
    if (from > toMs) return raw;
    for (const row of this.#packed.descending.iterate({ series: seriesId, from, to: toMs })) {
      const { ts, values } = this.#cache.points(seriesId, row);
      for (let i = lowerBound(ts, toMs + 1) - 1; i >= 0 && packed.length < limit; i--) {
        const t = ts[i] ?? 0;
        if (t < from) break;
        packed.push([t, values[i] ?? 0]);
      }
      if (packed.length >= limit) break;
    }
    return mergePointRows(raw, packed, limit, -1);
  }

  /** How many points have ts ≥ fromMs, and the newest ts (null when none). */
  countFrom(seriesId: number, fromMs: number): [count: number, maxTs: number | null] {
    this.#beforeRead();
    const [rawCount, rawMax] = this.#rawFrom.get(seriesId, fromMs) ?? [0, null];
    const [packedCount, packedMax] = this.#packed.startingFrom.get(seriesId, fromMs) ?? [0, null];
    let count = rawCount + packedCount;
    let maxTs = rawMax === null ? packedMax : packedMax === null ? rawMax : Math.max(rawMax, packedMax);
    // A block that starts before fromMs and reaches it: only its tail counts.
    const straddling = this.#packed.atOrBefore.get(seriesId, fromMs - 1);
    if (straddling && straddling[1] >= fromMs) {
      const { ts } = this.#blockPoints(seriesId, straddling);
      count += ts.length - lowerBound(ts, fromMs);
      maxTs = maxTs === null ? straddling[1] : Math.max(maxTs, straddling[1]);
    }
    return [count, maxTs];
  }

  /** The timestamps in [fromMs, toMs] stored in packed blocks: one read and a decode a block. */
  packedStamps(seriesId: number, fromMs: number, toMs: number): Set<number> {
    const stamps = new Set<number>();
    for (const row of this.#packed.ascending.all({ series: seriesId, from: fromMs, to: toMs })) {
      const { ts } = this.#cache.points(seriesId, row);
      for (let i = lowerBound(ts, fromMs); i < ts.length; i++) {
        const t = ts[i] ?? 0;
        if (t > toMs) break;
        stamps.add(t);
      }
    }
    return stamps;
  }

  /** A block's points, from the cache when there (a replayed batch asks about the same few blocks). */
  #blockPoints(seriesId: number, key: BlockKey): Points {
    return this.#cache.points(seriesId, key, () => this.#packed.data.get(seriesId, key[0]));
  }
}
