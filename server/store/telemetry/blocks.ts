import type { PointRow } from "../ports/telemetry-store.ts";
import { DAY_MS } from "./buckets.ts";
import { decodeBlock, type Points } from "./codec/block.ts";

/*
 * Packed blocks as both engines store them (telemetry_packed): the points of one series within one
 * UTC day, encoded by ./codec. What a block is and how decoded ones are cached is the same on both.
 */

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

/**
 * Where ascending instants are cut into blocks, as [from, to) index pairs: at UTC days, then each
 * day into equal pieces of at most MAX_BLOCK_POINTS. Packing and blocks written straight from a
 * commit cut alike, on both engines.
 */
export function blockPieces(ts: ArrayLike<number>): [from: number, to: number][] {
  const out: [number, number][] = [];
  let start = 0;
  while (start < ts.length) {
    const dayEnd = windowOf(ts[start] ?? 0).end;
    let end = start;
    while (end < ts.length && (ts[end] ?? 0) < dayEnd) end++;
    const pieces = Math.ceil((end - start) / MAX_BLOCK_POINTS);
    const size = Math.ceil((end - start) / pieces);
    for (let from = start; from < end; from += size) out.push([from, Math.min(end, from + size)]);
    start = end;
  }
  return out;
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

/** Block points and raw rows in ts order; a raw row at a packed ts (never expected) is dropped. */
export function mergePoints(blocks: readonly BlockRow[], raw: Points): Points {
  if (blocks.length === 0) return raw;
  const rawCount = raw.ts.length;
  const decoded = blocks.map((b) => decodeBlock(b[3]));
  const size = decoded.reduce((n, p) => n + p.ts.length, rawCount);
  const out: Points = { ts: new Float64Array(size), values: new Float64Array(size) };
  let n = 0;
  let j = 0;
  const takeRawBefore = (limit: number) => {
    while (j < rawCount && (raw.ts[j] ?? 0) < limit) {
      out.ts[n] = raw.ts[j] ?? 0;
      out.values[n++] = raw.values[j++] ?? 0;
    }
  };
  for (const p of decoded) {
    for (let i = 0; i < p.ts.length; i++) {
      const t = p.ts[i] ?? 0;
      takeRawBefore(t);
      if (raw.ts[j] === t) j++;
      out.ts[n] = t;
      out.values[n++] = p.values[i] ?? 0;
    }
  }
  takeRawBefore(Number.POSITIVE_INFINITY);
  return { ts: out.ts.subarray(0, n), values: out.values.subarray(0, n) };
}

/**
 * The first `limit` of two lists sorted the same way (direction 1 ascending, -1 descending). A ts
 * in both (which the write path never lets happen) is kept once, the packed one.
 */
export function mergePointRows(a: PointRow[], b: PointRow[], limit: number, direction: 1 | -1): PointRow[] {
  if (b.length === 0) return a.length > limit ? a.slice(0, limit) : a;
  if (a.length === 0) return b.length > limit ? b.slice(0, limit) : b;
  const out: PointRow[] = [];
  let i = 0;
  let j = 0;
  while (out.length < limit && (i < a.length || j < b.length)) {
    const x = a[i];
    const y = b[j];
    if (x && (!y || (x[0] - y[0]) * direction < 0)) {
      out.push(x);
      i++;
    } else if (y) {
      out.push(y);
      j++;
      if (x && x[0] === y[0]) i++;
    }
  }
  return out;
}
