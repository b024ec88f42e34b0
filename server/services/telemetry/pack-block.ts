import type { Statement } from "better-sqlite3";
import type { Sqlite } from "../../db/client.ts";
import { decodeBlock, encodeBlock } from "./codec/block.ts";
import { type BlockRow, MAX_BLOCK_POINTS, PackedReads, windowOf } from "./packed-blocks.ts";
import type { PointRow } from "./series-points.ts";

/** The statements of one packing step. */
export class PackStatements {
  readonly oldestRaw: Statement<[number, number], number>;
  readonly rawRows: Statement<[number, number, number, number], PointRow>;
  readonly packed: PackedReads;
  /** The last block before a ts, within a window: [series, window start, ts, ts]. */
  readonly previous: Statement<[number, number, number, number], BlockRow>;
  readonly insertBlock: Statement<[number, number, number, number, Uint8Array]>;
  readonly deleteBlock: Statement<[number, number]>;
  readonly deleteRaw: Statement<[number, number, number]>;

  constructor(sqlite: Sqlite) {
    this.oldestRaw = sqlite
      .prepare<[number, number], number>(
        "SELECT ts FROM telemetry_raw WHERE series_id = ? AND ts < ? ORDER BY ts LIMIT 1",
      )
      .pluck();
    this.rawRows = sqlite
      .prepare<[number, number, number, number], PointRow>(
        "SELECT ts, value FROM telemetry_raw WHERE series_id = ? AND ts >= ? AND ts < ? ORDER BY ts LIMIT ?",
      )
      .raw();
    this.packed = new PackedReads(sqlite);
    this.previous = sqlite
      .prepare<[number, number, number, number], BlockRow>(
        `SELECT first_ts, last_ts, count, data FROM telemetry_packed
         WHERE series_id = ? AND first_ts >= ? AND first_ts < ? AND last_ts < ?
         ORDER BY first_ts DESC LIMIT 1`,
      )
      .raw();
    this.insertBlock = sqlite.prepare(
      "INSERT INTO telemetry_packed (series_id, first_ts, last_ts, count, data) VALUES (?, ?, ?, ?, ?)",
    );
    this.deleteBlock = sqlite.prepare("DELETE FROM telemetry_packed WHERE series_id = ? AND first_ts = ?");
    this.deleteRaw = sqlite.prepare("DELETE FROM telemetry_raw WHERE series_id = ? AND ts >= ? AND ts <= ?");
  }
}

export type PackStep = {
  /** Raw rows moved into blocks. */
  rawRows: number;
  /** Points in the blocks written (raw rows plus the points of blocks they were merged into). */
  points: number;
  blocksWritten: number;
  /** Blocks replaced by the ones written (late readings merged into them). */
  blocksReplaced: number;
  bytes: number;
};

/**
 * Packs the oldest raw rows of a series with ts < `before`, at most MAX_BLOCK_POINTS of them and
 * within one UTC day, into packed blocks. Call inside a transaction: the blocks are written and
 * the raw rows deleted together, so a crash leaves either the rows or the blocks, never half.
 *
 * Rows that fall inside a block's span (late readings) are merged with it and the block is
 * rewritten; rows after the day's last block join it while it has room; otherwise they make new
 * blocks. The merged points are cut into equal blocks of at most MAX_BLOCK_POINTS. Returns
 * undefined when the series has no raw row before `before`.
 */
export function packNext(stmts: PackStatements, seriesId: number, before: number): PackStep | undefined {
  const oldest = stmts.oldestRaw.get(seriesId, before);
  if (oldest === undefined) return undefined;
  const window = windowOf(oldest);
  const rows = stmts.rawRows.all(seriesId, oldest, Math.min(before, window.end), MAX_BLOCK_POINTS);
  const firstRaw = rows[0]?.[0] ?? oldest;
  const lastRaw = rows.at(-1)?.[0] ?? oldest;
  let blocks = stmts.packed.ascending.all({ series: seriesId, from: firstRaw, to: lastRaw });
  if (blocks.length === 0) {
    const previous = stmts.previous.get(seriesId, window.start, firstRaw, firstRaw);
    if (previous && previous[2] + rows.length <= MAX_BLOCK_POINTS) blocks = [previous];
  }

  const merged = mergePoints(blocks, rows);
  const pieces = Math.ceil(merged.length / MAX_BLOCK_POINTS);
  const size = Math.ceil(merged.length / pieces);
  for (const block of blocks) stmts.deleteBlock.run(seriesId, block[0]);
  let bytes = 0;
  for (let from = 0; from < merged.length; from += size) {
    const chunk = merged.slice(from, from + size);
    const ts = chunk.map((p) => p[0]);
    const data = encodeBlock(
      ts,
      chunk.map((p) => p[1]),
    );
    stmts.insertBlock.run(seriesId, ts[0] ?? 0, ts.at(-1) ?? 0, chunk.length, data);
    bytes += data.length;
  }
  const deleted = stmts.deleteRaw.run(seriesId, firstRaw, lastRaw).changes;
  if (deleted !== rows.length) {
    throw new Error(`packing series ${seriesId}: ${deleted} raw rows deleted, ${rows.length} packed`);
  }
  return {
    rawRows: rows.length,
    points: merged.length,
    blocksWritten: pieces,
    blocksReplaced: blocks.length,
    bytes,
  };
}

/** Block points and raw rows in ts order; a raw row at a packed ts (never expected) is dropped. */
function mergePoints(blocks: readonly BlockRow[], rows: readonly PointRow[]): PointRow[] {
  const packed: PointRow[] = [];
  for (const block of blocks) {
    const { ts, values } = decodeBlock(block[3]);
    for (let i = 0; i < ts.length; i++) packed.push([ts[i] ?? 0, values[i] ?? 0]);
  }
  if (packed.length === 0) return [...rows];
  const out: PointRow[] = [];
  let i = 0;
  let j = 0;
  while (i < packed.length || j < rows.length) {
    const p = packed[i];
    const r = rows[j];
    if (p && (!r || p[0] <= r[0])) {
      out.push(p);
      i++;
      if (r && r[0] === p[0]) j++;
    } else if (r) {
      out.push(r);
      j++;
    }
  }
  return out;
}
