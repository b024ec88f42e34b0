import type { PackTotals } from "../ports/telemetry-store.ts";
import { type BlockRow, blockPieces, lowerBound, MAX_BLOCK_POINTS, mergePoints } from "./blocks.ts";
import { encodeBlock, type Points } from "./codec/block.ts";

/*
 * One packing step, as both engines take it (store/sqlite/telemetry/pack-block.ts,
 * store/postgres/telemetry/pack.ts): the oldest raw rows of a series within one UTC day, at most
 * MAX_BLOCK_POINTS, merged with the block their span falls in (late readings), or joined to the
 * day's previous block while it has room, then cut and encoded. Only the reads and writes around
 * it differ by engine.
 */

/** What one step did. */
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
 * Late rows across several blocks: the step merges only those before the second block into the
 * first, so that a step rewrites one block at most.
 */
export function firstBlockOnly(
  rows: Points,
  blocks: readonly BlockRow[],
): { rows: Points; blocks: BlockRow[] } {
  const second = blocks[1];
  if (!second) return { rows, blocks: [...blocks] };
  const keep = lowerBound(rows.ts, second[0]);
  return {
    rows: { ts: rows.ts.subarray(0, keep), values: rows.values.subarray(0, keep) },
    blocks: blocks.slice(0, 1),
  };
}

/** Whether rows after the day's previous block join it: the merged block stays within MAX_BLOCK_POINTS. */
export function joinsPrevious(previous: BlockRow | undefined, rows: number): previous is BlockRow {
  return previous !== undefined && previous[2] + rows <= MAX_BLOCK_POINTS;
}

/** The blocks that replace `blocks` and hold `rows` too: merged, cut as blockPieces cuts, encoded. */
export function packedBlocks(
  blocks: readonly BlockRow[],
  rows: Points,
): { written: BlockRow[]; points: number } {
  const merged = mergePoints(blocks, rows);
  const written = blockPieces(merged.ts).map(([from, to]): BlockRow => {
    const ts = merged.ts.subarray(from, to);
    return [ts[0] ?? 0, ts.at(-1) ?? 0, ts.length, encodeBlock(ts, merged.values.subarray(from, to))];
  });
  return { written, points: merged.ts.length };
}

/** A step's figures, from what it packed and wrote. */
export function stepOf(
  rows: Points,
  replaced: number,
  packed: { written: BlockRow[]; points: number },
): PackStep {
  return {
    rawRows: rows.ts.length,
    points: packed.points,
    blocksWritten: packed.written.length,
    blocksReplaced: replaced,
    bytes: packed.written.reduce((n, b) => n + b[3].length, 0),
  };
}

/** Totals of a packing pass before its first step. */
export function noPackTotals(): PackTotals {
  return {
    rawRows: 0,
    points: 0,
    blocks: 0,
    rewritten: 0,
    bytes: 0,
    series: 0,
    seconds: 0,
    longestStepMs: 0,
  };
}

/** Adds a step to a pass's totals. */
export function addStep(totals: PackTotals, step: PackStep): void {
  totals.rawRows += step.rawRows;
  totals.points += step.points;
  totals.blocks += step.blocksWritten;
  totals.rewritten += step.blocksReplaced;
  totals.bytes += step.bytes;
}
