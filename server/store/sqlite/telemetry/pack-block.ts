import type { Statement } from "better-sqlite3";
import { type BlockKey, type BlockRow, MAX_BLOCK_POINTS, windowOf } from "../../telemetry/blocks.ts";
import type { Points } from "../../telemetry/codec/block.ts";
import {
  firstBlockOnly,
  joinsPrevious,
  type PackStep,
  packedBlocks,
  stepOf,
} from "../../telemetry/pack-step.ts";
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
  ({ rows, blocks } = firstBlockOnly(rows, blocks));
  const firstRaw = rows.ts[0] ?? oldest;
  const lastRaw = rows.ts.at(-1) ?? oldest;
  if (blocks.length === 0) {
    const previous = stmts.previous.get(seriesId, window.start, firstRaw, firstRaw);
    if (joinsPrevious(previous, rows.ts.length)) blocks = [previous];
  }

  const packed = packedBlocks(blocks, rows);
  for (const block of blocks) stmts.deleteBlock.run(seriesId, block[0]);
  for (const [first, last, count, data] of packed.written)
    stmts.insertBlock.run(seriesId, first, last, count, data);
  const deleted = stmts.deleteRaw.run(seriesId, firstRaw, lastRaw).changes;
  if (deleted !== rows.ts.length) {
    throw new Error(`packing series ${seriesId}: ${deleted} raw rows deleted, ${rows.ts.length} packed`);
  }
  return stepOf(rows, blocks.length, packed);
}
