import { type BlockKey, MAX_BLOCK_POINTS, windowOf } from "../../telemetry/blocks.ts";
import { decodeBlock, encodeBlock } from "../../telemetry/codec/block.ts";
import type { PackStep } from "../../telemetry/pack-step.ts";
import type { Sqlite } from "../client.ts";
import { num } from "./indexed.ts";
import type { PackStatements } from "./pack-block.ts";

/** Block keys read per look: a look that finds nothing to join goes on from the last of them. */
const KEYS_PER_LOOK = 512;

/**
 * Series whose commits wrote packed blocks straight from ingest (raw-insert.ts, inbox.ts), with
 * where their first such block starts. Those blocks are as small as a commit's share of the
 * series; the packer joins them (compactNext) once they are older than its cutoff. Kept in
 * memory, and found again after a restart (seedYoungBlocks).
 */
export class YoungBlocks {
  readonly #from = new Map<number, number>();

  note(seriesId: number, firstTs: number): void {
    const from = this.#from.get(seriesId);
    if (from === undefined || firstTs < from) this.#from.set(seriesId, firstTs);
  }

  /** Where the series' young blocks start; undefined: it has none. */
  from(seriesId: number): number | undefined {
    return this.#from.get(seriesId);
  }

  /** After a compaction pass: young blocks remain from `resumeAt` on (undefined: none remain). */
  settle(seriesId: number, resumeAt: number | undefined): void {
    if (resumeAt === undefined) this.#from.delete(seriesId);
    else this.#from.set(seriesId, resumeAt);
  }

  get size(): number {
    return this.#from.size;
  }
}

/** How far back a start-up looks for small blocks a restart forgot (seedYoungBlocks). */
export const YOUNG_BLOCKS_LOOKBACK_MS = 7 * 24 * 3600_000;

/**
 * After a restart: notes, per series, its first block under JOIN_BELOW_POINTS points that starts
 * at or after `sinceMs`, so the packer joins the small blocks written before the restart too. One
 * index range read a series (up to the first small block), yielding to the event loop every 500
 * series. Older small blocks (a backlog written more than the lookback before its restart) keep
 * their size: bytes, never points.
 */
export async function seedYoungBlocks(
  sqlite: Sqlite,
  young: YoungBlocks,
  sinceMs: number,
  shouldStop: () => boolean,
): Promise<void> {
  const ids = sqlite.prepare<[], number>("SELECT id FROM telemetry_series").pluck().all();
  const firstSmall = sqlite
    .prepare<[number, number, number], number>(
      "SELECT first_ts FROM telemetry_packed WHERE series_id = ? AND first_ts >= ? AND count < ? ORDER BY first_ts LIMIT 1",
    )
    .pluck();
  for (let i = 0; i < ids.length; i++) {
    if (shouldStop()) return;
    const id = num(ids, i);
    const first = firstSmall.get(id, sinceMs, JOIN_BELOW_POINTS);
    if (first !== undefined) young.note(id, first);
    if (i % 500 === 499) await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * What one look did: `step` when blocks were joined; then `next`, where the next look starts.
 * Neither: nothing more to join before the cutoff; young blocks remain from `resumeAt`, if set.
 */
export type CompactLook = { step?: PackStep; next?: number; resumeAt?: number };

/**
 * Blocks of fewer points are joined with their neighbours; bigger ones are left as they are:
 * joining two blocks of 1,024 points would save about 1% of their bytes, for a decode and an
 * encode of every point.
 */
export const JOIN_BELOW_POINTS = 1024;
/** Joins per look (one transaction): a few milliseconds of the event loop. */
const JOINS_PER_LOOK = 16;

/**
 * Joins runs of consecutive small blocks of a series, from `from` on, that lie in one UTC day,
 * end before `before` and hold at most MAX_BLOCK_POINTS together, each run into one block. Call
 * inside a transaction. Blocks never overlap, so the joined points are the blocks' points, in order.
 */
export function compactNext(
  stmts: PackStatements,
  seriesId: number,
  from: number,
  before: number,
): CompactLook {
  const keys = stmts.keysFrom.all(seriesId, from, KEYS_PER_LOOK);
  let step: PackStep | undefined;
  let run: BlockKey[] = [];
  let points = 0;
  const settle = (): void => {
    if (run.length >= 2) step = sum(step, join(stmts, seriesId, run, points));
    run = [];
    points = 0;
  };
  const enough = () => (step?.blocksWritten ?? 0) >= JOINS_PER_LOOK;
  for (const key of keys) {
    const [first, last, count] = key;
    if (last >= before) {
      settle();
      return step ? { step, resumeAt: first } : { resumeAt: first };
    }
    const head = run[0];
    if (count >= JOIN_BELOW_POINTS) settle();
    else if (
      head &&
      (windowOf(head[0]).start !== windowOf(first).start || points + count > MAX_BLOCK_POINTS)
    ) {
      settle();
    }
    if (enough()) return { step, next: first };
    if (count >= JOIN_BELOW_POINTS) continue;
    run.push(key);
    points += count;
  }
  const last = keys.at(-1);
  const head = run[0];
  if (last && keys.length === KEYS_PER_LOOK && head !== keys[0]) {
    // The run at the end may go on past these keys: the next look starts with it.
    return step ? { step, next: (head ?? last)[0] } : { next: (head ?? last)[0] };
  }
  settle();
  return step ? { step } : {};
}

function sum(a: PackStep | undefined, b: PackStep): PackStep {
  if (!a) return b;
  return {
    rawRows: a.rawRows + b.rawRows,
    points: a.points + b.points,
    blocksWritten: a.blocksWritten + b.blocksWritten,
    blocksReplaced: a.blocksReplaced + b.blocksReplaced,
    bytes: a.bytes + b.bytes,
  };
}

function join(stmts: PackStatements, seriesId: number, run: readonly BlockKey[], points: number): PackStep {
  const ts = new Float64Array(points);
  const values = new Float64Array(points);
  let n = 0;
  for (const [first] of run) {
    const data = stmts.packed.data.get(seriesId, first);
    if (!data) throw new Error(`joining blocks of series ${seriesId}: block at ${first} vanished`);
    const block = decodeBlock(data);
    ts.set(block.ts, n);
    values.set(block.values, n);
    n += block.ts.length;
    stmts.deleteBlock.run(seriesId, first);
  }
  if (n !== points)
    throw new Error(`joining blocks of series ${seriesId}: ${n} points decoded, ${points} counted`);
  const data = encodeBlock(ts, values);
  stmts.insertBlock.run(seriesId, num(ts, 0), num(ts, n - 1), n, data);
  return { rawRows: 0, points: n, blocksWritten: 1, blocksReplaced: run.length, bytes: data.length };
}
