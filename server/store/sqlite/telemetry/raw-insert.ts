import { blockPieces } from "../../telemetry/blocks.ts";
import { encodeBlock } from "../../telemetry/codec/block.ts";
import { ChunkedAppend } from "./chunked-append.ts";
import { at, num } from "./indexed.ts";
import type { Slot } from "./slot.ts";
import type { WriteStatements } from "./statements.ts";

/** Thrown when the append path met a stored row: the lookups were stale; the caller retries. */
export class AppendConflictError extends Error {}

/**
 * Inserts the rows (series, ts order) and marks in `stored` those it stored.
 *
 * Readings newer than their series' committed last_ts cannot collide with a stored point. When a
 * series has at least `blockPoints` of them in the commit (0: never), they are encoded straight
 * into packed blocks (one telemetry_packed row per UTC day and MAX_BLOCK_POINTS) instead of one
 * raw row each: a raw row cost ~1.4 µs to insert and ~25 bytes, a block ~0.2 µs and ~2–7 bytes a
 * point (measured, see the README's "Cold telemetry"). Such blocks lie after every stored point of
 * their series, so blocks still never overlap; the packer later joins small ones (compact-blocks.ts).
 * Fewer new readings go to the inbox (inbox.ts) in multi-row statements, and so do as many older
 * readings of a series whose span holds no stored point. The caller has emptied the inbox when the
 * commit holds older readings (writer.ts), so "stored" here means raw or packed.
 *
 * The rest (backfill, replays) go one by one, stored only if their millisecond is free, in
 * telemetry_raw and in the packed blocks (a late reading for a packed block stays raw until the
 * packer merges it). A row repeating the previous one (same series and ts) is a duplicate within
 * the commit. On the retry path (`appendFastPath` false) every row goes one by one.
 */
export function insertRaw(
  stmts: WriteStatements,
  appendFastPath: boolean,
  blockPoints: number,
  slots: readonly Slot[],
  order: Uint32Array,
  rowSlot: Int32Array,
  rowSeries: Int32Array,
  rowRun: Int32Array,
  rowTs: Float64Array,
  rowValue: Float64Array,
  stored: Uint8Array,
): BlockWrites {
  // Readings that cannot collide and make no block go to the inbox (inbox.ts), which moves them on.
  const inbox = new ChunkedAppend(stmts.inboxAppend);

  const blocks: BlockWrites = { blocks: 0, points: 0, firstTsBySeries: new Map(), inboxRows: 0 };
  const asBlocks = (rows: readonly number[]) => blockPoints > 0 && rows.length >= blockPoints;
  // The current series' rows (ts order): new readings, and older ones (backfill, replays).
  const fresh: number[] = [];
  const late: number[] = [];
  let current = -1;
  const appendRows = (rows: readonly number[]): void => {
    for (const r of rows) inbox.push(num(rowSeries, r), num(rowTs, r), num(rowValue, r));
  };
  const settleSeries = (): void => {
    if (asBlocks(fresh)) writeBlocks(stmts, current, fresh, rowTs, rowValue, blocks);
    else appendRows(fresh);
    // Older readings in a stretch where the series stores nothing yet (a batch that overtook an
    // earlier one, an agent's backlog behind its live readings) cannot collide either: a block
    // when there are enough, else raw rows without a check each. Two lookups for the stretch
    // instead of one a reading (a backlog's readings each cost ~7 µs checked one by one).
    const span = (): [number, number] => [num(rowTs, num(late, 0)), num(rowTs, num(late, late.length - 1))];
    if (appendFastPath && late.length > 0 && stmts.isFree(current, ...span())) {
      for (const r of late) stored[r] = 1;
      if (asBlocks(late)) writeBlocks(stmts, current, late, rowTs, rowValue, blocks);
      else appendRows(late);
    } else if (late.length > 0) {
      // Each stored only if its millisecond is still free, in the packed blocks (read once for
      // the stretch) and in telemetry_raw.
      const packed = stmts.points.packedStamps(current, ...span());
      for (const r of late) {
        const ts = num(rowTs, r);
        const free = !packed.has(ts) && stmts.insertOne.run(current, ts, num(rowValue, r)).changes === 1;
        stored[r] = free ? 1 : 0;
      }
    }
    fresh.length = 0;
    late.length = 0;
  };

  let previousTs = Number.NaN;
  let committedLastTs: number | null = null;
  let currentRun = -1;
  // Walked by index over the commit's own typed arrays: `?? 0` never applies.
  for (let k = 0; k < order.length; k++) {
    const r = order[k] ?? 0;
    const series = rowSeries[r] ?? 0;
    const ts = rowTs[r] ?? 0;
    if (series !== current) {
      settleSeries();
      current = series;
      committedLastTs = at(slots, rowSlot[r] ?? 0).committedLastTs;
      currentRun = rowRun[r] ?? 0;
    } else if (ts === previousTs) continue;
    else if (rowRun[r] !== currentRun) {
      // Each request's part on its own (an agent's consecutive batches are one run, writer.ts
      // runsOf): a block spanning two requests would cover the gap of a third still on its way,
      // whose readings then could not be a block.
      settleSeries();
      currentRun = rowRun[r] ?? 0;
    }
    previousTs = ts;
    if (appendFastPath && (committedLastTs === null || ts > committedLastTs)) {
      stored[r] = 1;
      fresh.push(r);
    } else {
      late.push(r);
    }
  }
  settleSeries();
  inbox.flush();
  blocks.inboxRows = inbox.rows;
  return blocks;
}

/**
 * What a commit wrote as blocks (`firstTsBySeries`: each series' first block's first_ts), and how
 * many rows it put in the inbox.
 */
export type BlockWrites = {
  blocks: number;
  points: number;
  firstTsBySeries: Map<number, number>;
  inboxRows: number;
};

/**
 * One series' new readings (`rows`, ts ascending) as packed blocks: cut at UTC days, then into
 * equal pieces of at most MAX_BLOCK_POINTS, as the packer cuts them.
 */
export function writeBlocks(
  stmts: WriteStatements,
  seriesId: number,
  rows: readonly number[],
  rowTs: Float64Array,
  rowValue: Float64Array,
  out: BlockWrites,
): void {
  const ts = new Float64Array(rows.length);
  const values = new Float64Array(rows.length);
  for (let k = 0; k < rows.length; k++) {
    const r = rows[k] ?? 0;
    ts[k] = rowTs[r] ?? 0;
    values[k] = rowValue[r] ?? 0;
  }
  for (const [from, to] of blockPieces(ts)) {
    const first = num(ts, from);
    const data = encodeBlock(ts.subarray(from, to), values.subarray(from, to));
    try {
      stmts.insertBlock.run(seriesId, first, num(ts, to - 1), to - from, data);
    } catch (err) {
      throw conflictOr(err);
    }
    out.blocks++;
    out.points += to - from;
    if (!out.firstTsBySeries.has(seriesId)) out.firstTsBySeries.set(seriesId, first);
  }
}

function conflictOr(err: unknown): unknown {
  const conflict = err instanceof Error && "code" in err && err.code === "SQLITE_CONSTRAINT_PRIMARYKEY";
  return conflict
    ? new AppendConflictError("a reading newer than its series' last_ts was already stored")
    : err;
}
