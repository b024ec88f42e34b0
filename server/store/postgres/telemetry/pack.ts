import type { PackTotals } from "../../ports/telemetry-store.ts";
import { type BlockRow, MAX_BLOCK_POINTS, windowOf } from "../../telemetry/blocks.ts";
import type { Points } from "../../telemetry/codec/block.ts";
import {
  addStep,
  firstBlockOnly,
  joinsPrevious,
  noPackTotals,
  type PackStep,
  packedBlocks,
  stepOf,
} from "../../telemetry/pack-step.ts";
import { PgPoints } from "./points.ts";
import type { Query } from "./query.ts";
import type { InTransaction, SeriesMark } from "./rollup-runner.ts";
import { stateOfSeries } from "./rollup-runner.ts";

const pause = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Packs cold raw rows (ts < cutoff) into telemetry_packed with the codec SQLite uses, series by
 * series, one transaction per block (which locks the series row: writes of the series wait for
 * it, so a reading is never both raw and packed, nor neither). Rows from the series' roll-up
 * watermark on stay raw until rolled up. Late readings are merged into the block whose span they
 * fall in. The whole pass runs after a roll-up of everything (the caller's).
 */
export async function packTelemetry(
  inTransaction: InTransaction,
  seriesIds: readonly number[],
  cutoffMs: number,
  shouldStop: () => boolean,
  progress: (p: PackTotals & { seriesDone: number; seriesTotal: number }) => void,
  progressMs = 10_000,
): Promise<PackTotals> {
  const started = performance.now();
  const totals = noPackTotals();
  const finish = () => ({ ...totals, seconds: (performance.now() - started) / 1000 });
  let reported = started;
  for (let s = 0; s < seriesIds.length; s++) {
    const id = seriesIds[s] ?? 0;
    let packedAny = false;
    for (;;) {
      if (shouldStop()) return finish();
      const stepStarted = performance.now();
      const step = await inTransaction((query) => packStep(query, id, cutoffMs));
      totals.longestStepMs = Math.max(totals.longestStepMs, performance.now() - stepStarted);
      if (!step) break;
      packedAny = true;
      addStep(totals, step);
      await pause();
      if (performance.now() - reported >= progressMs) {
        reported = performance.now();
        progress({ ...finish(), seriesDone: s, seriesTotal: seriesIds.length });
      }
    }
    if (packedAny) totals.series++;
  }
  return finish();
}

/** One step of SQLite's packNext (services/telemetry/pack-block.ts) for one series, in a transaction. */
async function packStep(query: Query, seriesId: number, cutoffMs: number): Promise<PackStep | undefined> {
  const points = new PgPoints(query);
  const [mark] = await query<SeriesMark>(
    `SELECT id::float8, last_ts::float8, rolled_to::float8 FROM telemetry_series WHERE id = $1 FOR NO KEY UPDATE`,
    [seriesId],
  );
  if (!mark) return undefined;
  const { state } = await stateOfSeries(query, points, mark);
  // Rows from the roll-up watermark on are not in the rollups yet: they stay raw for now.
  const before = Math.min(cutoffMs, state.replaceFrom ?? state.rolledTo);
  const [oldestRow] = await query<[number]>(
    "SELECT ts::float8 FROM telemetry_raw WHERE series_id = $1 AND ts < $2 ORDER BY telemetry_raw.ts LIMIT 1",
    [seriesId, before],
  );
  if (!oldestRow) return undefined;
  const oldest = oldestRow[0];
  const window = windowOf(oldest);
  const end = Math.min(before, window.end);
  const raw = await query<[number, number]>(
    `SELECT ts::float8, value FROM telemetry_raw WHERE series_id = $1 AND ts >= $2 AND ts < $3
      ORDER BY telemetry_raw.ts LIMIT $4`,
    [seriesId, oldest, end, MAX_BLOCK_POINTS],
  );
  let rows: Points = { ts: Float64Array.from(raw, (r) => r[0]), values: Float64Array.from(raw, (r) => r[1]) };
  let blocks = await points.overlapping(seriesId, rows.ts[0] ?? oldest, rows.ts.at(-1) ?? oldest);
  ({ rows, blocks } = firstBlockOnly(rows, blocks));
  const firstRaw = rows.ts[0] ?? oldest;
  const lastRaw = rows.ts.at(-1) ?? oldest;
  if (blocks.length === 0) {
    const [previous] = await query<BlockRow>(
      `SELECT first_ts::float8, last_ts::float8, count::float8, data FROM telemetry_packed
        WHERE series_id = $1 AND first_ts >= $2 AND first_ts < $3 AND last_ts < $4
        ORDER BY telemetry_packed.first_ts DESC LIMIT 1`,
      [seriesId, window.start, firstRaw, firstRaw],
    );
    if (joinsPrevious(previous, rows.ts.length)) blocks = [previous];
  }

  const packed = packedBlocks(blocks, rows);
  if (blocks.length > 0) {
    await query("DELETE FROM telemetry_packed WHERE series_id = $1 AND first_ts = ANY($2::bigint[])", [
      seriesId,
      blocks.map((b) => b[0]),
    ]);
  }
  for (const [first, last, count, data] of packed.written) {
    await query(
      "INSERT INTO telemetry_packed (series_id, first_ts, last_ts, count, data) VALUES ($1, $2, $3, $4, $5)",
      [seriesId, first, last, count, Buffer.from(data.buffer, data.byteOffset, data.byteLength)],
    );
  }
  const [deleted] = await query<[number]>(
    `WITH gone AS (DELETE FROM telemetry_raw WHERE series_id = $1 AND ts >= $2 AND ts <= $3 RETURNING 1)
     SELECT count(*)::float8 FROM gone`,
    [seriesId, firstRaw, lastRaw],
  );
  if (deleted?.[0] !== rows.ts.length) {
    throw new Error(`packing series ${seriesId}: ${deleted?.[0]} raw rows deleted, ${rows.ts.length} packed`);
  }
  return stepOf(rows, blocks.length, packed);
}
