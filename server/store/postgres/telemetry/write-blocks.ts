import { blockPieces } from "../../telemetry/blocks.ts";
import { encodeBlock } from "../../telemetry/codec/block.ts";
import { byteaArray, int8Array } from "./binary-arrays.ts";
import type { Query } from "./query.ts";

/** A reading of the batch on its way in: its series (as locked by the write) and where it came from. */
export type WriteRow = {
  slot: { id: number; committedLastTs: number | null };
  entry: number;
  point: number;
  ts: number;
  value: number;
};

/**
 * Writes readings straight into packed blocks, as SQLite does (store/sqlite/telemetry/raw-insert.ts),
 * when a series has at least `blockPoints` of them (0: never) that cannot collide with a stored
 * point (the series row is locked, so nothing of it changes meanwhile):
 * - those newer than everything the series stores (last_ts is its newest): their blocks lie after
 *   every block of the series;
 * - an older stretch (an agent's backlog behind its live readings, a backfill) in which the series
 *   stores nothing and no block reaches (`freeStretches`, see stretchIsFree).
 * So blocks still never overlap. A raw row costs PostgreSQL a heap tuple and an index entry (~60
 * bytes) and later a pass of the packer; a block 2–7 bytes a point.
 *
 * `rows` are in (series, ts) order without a millisecond twice. Returns the rows left for
 * telemetry_raw, and those stored in blocks.
 */
export async function writeBlocks<R extends WriteRow>(
  query: Query,
  rows: readonly R[],
  blockPoints: number,
  freeStretches: ReadonlySet<R["slot"]>,
): Promise<{ raw: R[]; packed: R[] }> {
  if (blockPoints <= 0) return { raw: [...rows], packed: [] };
  const raw: R[] = [];
  const packed: R[] = [];
  const blocks: { series: number[]; first: number[]; last: number[]; count: number[]; data: Uint8Array[] } = {
    series: [],
    first: [],
    last: [],
    count: [],
    data: [],
  };
  const encode = (slot: R["slot"], from: number, to: number) => {
    const ts = Float64Array.from({ length: to - from }, (_, i) => (rows[from + i] as R).ts);
    const values = Float64Array.from({ length: to - from }, (_, i) => (rows[from + i] as R).value);
    for (const [first, end] of blockPieces(ts)) {
      blocks.series.push(slot.id);
      blocks.first.push(ts[first] ?? 0);
      blocks.last.push(ts[end - 1] ?? 0);
      blocks.count.push(end - first);
      blocks.data.push(encodeBlock(ts.subarray(first, end), values.subarray(first, end)));
    }
    for (let i = from; i < to; i++) packed.push(rows[i] as R);
  };
  let start = 0;
  while (start < rows.length) {
    const slot = (rows[start] as R).slot;
    let end = start;
    while (end < rows.length && (rows[end] as R).slot === slot) end++;
    // Ascending by ts: the fresh readings are the run's tail, the older ones its head.
    let fresh = end;
    const last = slot.committedLastTs;
    while (fresh > start && (last === null || (rows[fresh - 1] as R).ts > last)) fresh--;
    if (fresh - start >= blockPoints && freeStretches.has(slot)) encode(slot, start, fresh);
    else for (let i = start; i < fresh; i++) raw.push(rows[i] as R);
    if (end - fresh >= blockPoints) encode(slot, fresh, end);
    else for (let i = fresh; i < end; i++) raw.push(rows[i] as R);
    start = end;
  }
  if (blocks.series.length > 0) {
    await query(
      `INSERT INTO telemetry_packed (series_id, first_ts, last_ts, count, data)
       SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bytea[])`,
      [
        int8Array(blocks.series),
        int8Array(blocks.first),
        int8Array(blocks.last),
        int8Array(blocks.count),
        byteaArray(blocks.data),
      ],
    );
  }
  return { raw, packed };
}

/**
 * Whether the series stores nothing in [first, last] and no block of it reaches into that span:
 * no raw row there, and the last block starting at or before `last` ends before `first` (blocks
 * never overlap, so no earlier one can reach further).
 */
export async function stretchIsFree(
  query: Query,
  seriesId: number,
  first: number,
  last: number,
): Promise<boolean> {
  const [row] = await query<[boolean]>(
    `SELECT NOT EXISTS (SELECT 1 FROM telemetry_raw WHERE series_id = $1 AND ts >= $2 AND ts <= $3)
        AND coalesce((SELECT last_ts FROM telemetry_packed WHERE series_id = $1 AND first_ts <= $3
                       ORDER BY telemetry_packed.first_ts DESC LIMIT 1) < $2, true)`,
    [seriesId, first, last],
  );
  return row?.[0] === true;
}
