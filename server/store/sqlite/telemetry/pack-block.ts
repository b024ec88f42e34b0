import type { Statement } from "better-sqlite3";
import {
  type BlockKey,
  type BlockRow,
  blockPieces,
  lowerBound,
  MAX_BLOCK_POINTS,
  mergePoints,
  windowOf,
} from "../../telemetry/blocks.ts";
import { encodeBlock, type Points } from "../../telemetry/codec/block.ts";
import type { Sqlite } from "../client.ts";
import { PackedReads } from "./packed-blocks.ts";

/** The statements of one packing step. */
export class PackStatements {
  readonly oldestRaw: Statement<[number, number], number>;
  /** The same rows' ts, then their values: plucked columns read twice as fast as row arrays. */
  readonly rawTs: Statement<[number, number, number, number], number>;
  readonly rawValues: Statement<[number, number, number, number], number>;
  readonly packed: PackedReads;
  /** The last block before a ts, within a window: [series, window start, ts, ts]. */
  readonly previous: Statement<[number, number, number, number], BlockRow>;
  /** Block keys from a first_ts on, ascending: [series, first_ts, limit]. */
  readonly keysFrom: Statement<[number, number, number], BlockKey>;
  readonly insertBlock: Statement<[number, number, number, number, Uint8Array]>;
  readonly deleteBlock: Statement<[number, number]>;
  readonly deleteRaw: Statement<[number, number, number]>;

  constructor(sqlite: Sqlite) {
    this.oldestRaw = sqlite
      .prepare<[number, number], number>(
        "SELECT ts FROM telemetry_raw WHERE series_id = ? AND ts < ? ORDER BY ts LIMIT 1",
      )
      .pluck();
    const rows = "FROM telemetry_raw WHERE series_id = ? AND ts >= ? AND ts < ? ORDER BY ts LIMIT ?";
    this.rawTs = sqlite.prepare<[number, number, number, number], number>(`SELECT ts ${rows}`).pluck();
    this.rawValues = sqlite.prepare<[number, number, number, number], number>(`SELECT value ${rows}`).pluck();
    this.packed = new PackedReads(sqlite);
    this.previous = sqlite
      .prepare<[number, number, number, number], BlockRow>(
        `SELECT first_ts, last_ts, count, data FROM telemetry_packed
         WHERE series_id = ? AND first_ts >= ? AND first_ts < ? AND last_ts < ?
         ORDER BY first_ts DESC LIMIT 1`,
      )
      .raw();
    this.keysFrom = sqlite
      .prepare<[number, number, number], BlockKey>(
        "SELECT first_ts, last_ts, count FROM telemetry_packed WHERE series_id = ? AND first_ts >= ? ORDER BY first_ts LIMIT ?",
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
 * rewritten, one block per step; rows after the day's last block join it while it has room;
 * otherwise they make new blocks. The merged points are cut into equal blocks of at most
 * MAX_BLOCK_POINTS. Returns undefined when the series has no raw row before `before`.
 */
export function packNext(stmts: PackStatements, seriesId: number, before: number): PackStep | undefined {
  const oldest = stmts.oldestRaw.get(seriesId, before);
  if (oldest === undefined) return undefined;
  const window = windowOf(oldest);
  const end = Math.min(before, window.end);
  let rows: Points = {
    ts: Float64Array.from(stmts.rawTs.all(seriesId, oldest, end, MAX_BLOCK_POINTS)),
    values: Float64Array.from(stmts.rawValues.all(seriesId, oldest, end, MAX_BLOCK_POINTS)),
  };
  let blocks = stmts.packed.ascending.all({
    series: seriesId,
    from: rows.ts[0] ?? oldest,
    to: rows.ts.at(-1) ?? oldest,
  });
  const second = blocks[1];
  if (second) {
    // Late rows across several blocks: this step merges those before the second block into the
    // first, so that a step rewrites one block at most.
    const keep = lowerBound(rows.ts, second[0]);
    rows = { ts: rows.ts.subarray(0, keep), values: rows.values.subarray(0, keep) };
    blocks = blocks.slice(0, 1);
  }
  const firstRaw = rows.ts[0] ?? oldest;
  const lastRaw = rows.ts.at(-1) ?? oldest;
  if (blocks.length === 0) {
    const previous = stmts.previous.get(seriesId, window.start, firstRaw, firstRaw);
    if (previous && previous[2] + rows.ts.length <= MAX_BLOCK_POINTS) blocks = [previous];
  }

  const merged = mergePoints(blocks, rows);
  const count = merged.ts.length;
  const pieces = blockPieces(merged.ts);
  for (const block of blocks) stmts.deleteBlock.run(seriesId, block[0]);
  let bytes = 0;
  for (const [from, to] of pieces) {
    const ts = merged.ts.subarray(from, to);
    const data = encodeBlock(ts, merged.values.subarray(from, to));
    stmts.insertBlock.run(seriesId, ts[0] ?? 0, ts.at(-1) ?? 0, ts.length, data);
    bytes += data.length;
  }
  const deleted = stmts.deleteRaw.run(seriesId, firstRaw, lastRaw).changes;
  if (deleted !== rows.ts.length) {
    throw new Error(`packing series ${seriesId}: ${deleted} raw rows deleted, ${rows.ts.length} packed`);
  }
  return {
    rawRows: rows.ts.length,
    points: count,
    blocksWritten: pieces.length,
    blocksReplaced: blocks.length,
    bytes,
  };
}
