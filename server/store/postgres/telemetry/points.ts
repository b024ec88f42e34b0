import type { PointReader, PointRow } from "../../ports/telemetry-store.ts";
import {
  BlockCache,
  type BlockKey,
  type BlockRow,
  lowerBound,
  mergePointRows,
} from "../../telemetry/blocks.ts";
import type { Points } from "../../telemetry/codec/block.ts";
import type { Query } from "./query.ts";

/** Blocks overlapping [$2, $3] of series $1: from the last one starting at or before $2 on. */
const OVERLAPPING = `SELECT first_ts::float8, last_ts::float8, count::float8, data FROM telemetry_packed
  WHERE series_id = $1 AND first_ts <= $3 AND last_ts >= $2 AND first_ts >= coalesce(
    (SELECT max(first_ts) FROM telemetry_packed WHERE series_id = $1 AND first_ts <= $2), $2)`;

const RAW = "SELECT ts::float8, value FROM telemetry_raw WHERE series_id = $1 AND ts >= $2 AND ts <= $3";

/**
 * A series' stored points, raw rows and packed blocks merged in ts order, as SQLite's
 * SeriesPoints (services/telemetry/series-points.ts) reads them: the same limits, the same
 * order, the same block cache. A (series, ts) lives in exactly one of the two.
 */
export class PgPoints implements PointReader {
  readonly #query: Query;
  readonly #cache: BlockCache;

  constructor(query: Query, cache = new BlockCache(16)) {
    this.#query = query;
    this.#cache = cache;
  }

  async ascending(seriesId: number, fromMs: number, toMs: number, limit: number): Promise<PointRow[]> {
    const raw = await this.#query<PointRow>(`${RAW} ORDER BY telemetry_raw.ts LIMIT $4`, [
      seriesId,
      fromMs,
      toMs,
      limit,
    ]);
    // With `limit` raw rows, only packed points before the last of them can be among the first.
    const to = raw.length === limit ? Math.min(toMs, (raw.at(-1)?.[0] ?? toMs) - 1) : toMs;
    if (to < fromMs) return raw;
    const packed: PointRow[] = [];
    for (const row of await this.#blocks(seriesId, fromMs, to, "")) {
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

  async descending(seriesId: number, fromMs: number, toMs: number, limit: number): Promise<PointRow[]> {
    const raw = await this.#query<PointRow>(`${RAW} ORDER BY telemetry_raw.ts DESC LIMIT $4`, [
      seriesId,
      fromMs,
      toMs,
      limit,
    ]);
    // Recent readings are raw: a read of them decodes no block.
    const from = raw.length === limit ? Math.max(fromMs, (raw.at(-1)?.[0] ?? fromMs) + 1) : fromMs;
    if (from > toMs) return raw;
    const packed: PointRow[] = [];
    for (const row of await this.#blocks(seriesId, from, toMs, " DESC")) {
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
  async countFrom(seriesId: number, fromMs: number): Promise<[count: number, maxTs: number | null]> {
    const [row] = await this.#query<[number, number | null, number, number | null]>(
      `SELECT (SELECT count(*)::float8 FROM telemetry_raw WHERE series_id = $1 AND ts >= $2),
              (SELECT max(ts)::float8 FROM telemetry_raw WHERE series_id = $1 AND ts >= $2),
              (SELECT coalesce(sum(count), 0)::float8 FROM telemetry_packed WHERE series_id = $1 AND first_ts >= $2),
              (SELECT max(last_ts)::float8 FROM telemetry_packed WHERE series_id = $1 AND first_ts >= $2)`,
      [seriesId, fromMs],
    );
    const [rawCount, rawMax, packedCount, packedMax] = row ?? [0, null, 0, null];
    let count = rawCount + packedCount;
    let maxTs = rawMax === null ? packedMax : packedMax === null ? rawMax : Math.max(rawMax, packedMax);
    // A block that starts before fromMs and reaches it: only its tail counts.
    const [straddling] = await this.#query<BlockKey>(
      `SELECT first_ts::float8, last_ts::float8, count::float8 FROM telemetry_packed
        WHERE series_id = $1 AND first_ts <= $2 ORDER BY telemetry_packed.first_ts DESC LIMIT 1`,
      [seriesId, fromMs - 1],
    );
    if (straddling && straddling[1] >= fromMs) {
      const { ts } = await this.#blockPoints(seriesId, straddling);
      count += ts.length - lowerBound(ts, fromMs);
      maxTs = maxTs === null ? straddling[1] : Math.max(maxTs, straddling[1]);
    }
    return [count, maxTs];
  }

  /** The timestamps in [fromMs, toMs] stored in packed blocks. */
  async packedStamps(seriesId: number, fromMs: number, toMs: number): Promise<Set<number>> {
    const stamps = new Set<number>();
    for (const row of await this.#blocks(seriesId, fromMs, toMs, "")) {
      const { ts } = this.#cache.points(seriesId, row);
      for (let i = lowerBound(ts, fromMs); i < ts.length; i++) {
        const t = ts[i] ?? 0;
        if (t > toMs) break;
        stamps.add(t);
      }
    }
    return stamps;
  }

  /** The series' blocks overlapping [from, to], ascending. */
  overlapping(seriesId: number, from: number, to: number): Promise<BlockRow[]> {
    return this.#blocks(seriesId, from, to, "");
  }

  #blocks(seriesId: number, from: number, to: number, direction: "" | " DESC"): Promise<BlockRow[]> {
    return this.#query<BlockRow>(`${OVERLAPPING} ORDER BY telemetry_packed.first_ts${direction}`, [
      seriesId,
      from,
      to,
    ]);
  }

  async #blockPoints(seriesId: number, key: BlockKey): Promise<Points> {
    const [row] = await this.#query<[Uint8Array]>(
      "SELECT data FROM telemetry_packed WHERE series_id = $1 AND first_ts = $2",
      [seriesId, key[0]],
    );
    return this.#cache.points(seriesId, key, () => row?.[0]);
  }
}
