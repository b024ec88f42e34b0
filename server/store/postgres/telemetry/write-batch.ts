import type { BatchSeries, TelemetryBatch } from "../../../../shared/telemetry/batch.ts";
import { notFound } from "../../../errors.ts";
import type { WrittenBatch } from "../../ports/telemetry-store.ts";
import { BucketBuilder } from "../../telemetry/buckets.ts";
import { storedPart } from "../../telemetry/stored-part.ts";
import { float8Array, int8Array } from "./binary-arrays.ts";
import type { PgPoints } from "./points.ts";
import type { Query } from "./query.ts";
import { stateOfSeries } from "./rollup-runner.ts";
import { mergeBuckets, NOTHING_ROLLED, type RollupState, type SeriesBuckets } from "./rollups.ts";
import { stretchIsFree, writeBlocks } from "./write-blocks.ts";

/** One write of a group: a batch and the billing period (YYYY-MM) its points count in. */
export type WritePart = { batch: TelemetryBatch; period: string };

/** A series the batch writes to, as this transaction found (and locked) it. */
type Slot = {
  id: number;
  created: boolean;
  committedLastTs: number | null;
  unit: string | null;
  unitChanged: boolean;
  state: RollupState;
  pending: boolean;
  /** The watermark to store after this write (null: leave it). */
  storeRolledTo: number | null;
  rollsUp: boolean;
  deferred: boolean;
  newestTs: number | null;
  newestValue: number;
};

/** What a batch left out by its claim() answers, as on SQLite. */
export const NOTHING: WrittenBatch = {
  result: { accepted: 0, duplicates: 0 },
  committed: { source: "http", series: [] },
};

const key = (assetId: string, variable: string) => `${assetId}\u0000${variable}`;

/**
 * Writes batches (a group of writes, in order) inside the caller's transaction as one, with
 * SQLite's rules (store/sqlite/telemetry/writer.ts), and answers what each stored:
 * - every series' asset must still be in its project (the asset rows are locked FOR SHARE, so
 *   none moves or goes until the commit), else NotFound "asset";
 * - series are created on first sight (INSERT … ON CONFLICT DO NOTHING: concurrent writers agree
 *   on one row), then locked FOR NO KEY UPDATE in id order (see rollup-runner.ts);
 * - duplicates (same series and millisecond, stored already, raw or packed, or earlier in the
 *   batches) are not stored and count nowhere; `blockPoints` readings of a series that cannot
 *   collide go straight into packed blocks (write-blocks.ts), the rest as raw rows in one
 *   INSERT … SELECT FROM unnest(…);
 * - backfilled readings (older than the series' roll-up watermark) are merged into the rollups
 *   here, and so are all of a series' readings when it stores `blockPoints` of them and nothing is
 *   pending; newer ones are left to the roll-up pass;
 * - last_ts/last_value when a stored reading is newer, the unit, the watermark, and the
 *   usage_counters of each project and period, all in bulk.
 */
export async function writeBatches(
  query: Query,
  points: PgPoints,
  parts: readonly WritePart[],
  blockPoints: number,
): Promise<WrittenBatch[]> {
  // The parts' series one after the other: a reading's entry is its series' place in this list.
  const all = parts.flatMap((p) => p.batch.series);
  // Validated when the request arrived; the asset may have been deleted (or moved) since.
  const assetIds = [...new Set(all.map((s) => s.assetId))].sort();
  const owners = new Map(
    await query<[string, string]>(
      "SELECT id, project_id FROM assets WHERE id = ANY($1::text[]) ORDER BY id FOR SHARE",
      [assetIds],
    ),
  );
  for (const s of all) if (owners.get(s.assetId) !== s.projectId) throw notFound("asset");

  const slots = await findSeries(query, points, all);
  // Each row: the slot, its entry (batch series) and point index; then sorted by (series id, ts),
  // ties in batch order (parts in order) so that the first of a millisecond's readings is stored.
  const rows: { slot: Slot; entry: number; point: number; ts: number; value: number }[] = [];
  all.forEach((s, entry) => {
    const slot = slots.get(key(s.assetId, s.variable)) as Slot;
    s.points.forEach(([ts, value], point) => {
      rows.push({ slot, entry, point, ts, value });
    });
  });
  rows.sort((a, b) => a.slot.id - b.slot.id || a.ts - b.ts || a.entry - b.entry || a.point - b.point);

  const stored = all.map((s) => new Uint8Array(s.points.length));
  const candidates: typeof rows = [];
  const late = new Map<Slot, { from: number; to: number; count: number }>();
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i] as (typeof rows)[number];
    const previous = rows[i - 1];
    if (previous && previous.slot === r.slot && previous.ts === r.ts) continue; // repeated in the batch
    candidates.push(r);
    const last = r.slot.committedLastTs;
    if (last !== null && r.ts <= last) {
      const span = late.get(r.slot);
      if (span) {
        span.to = r.ts;
        span.count++;
      } else late.set(r.slot, { from: r.ts, to: r.ts, count: 1 });
    }
  }
  // Older readings may be packed already: their milliseconds are taken. A stretch of enough of
  // them where the series stores nothing can be a block.
  const packed = new Map<Slot, Set<number>>();
  const free = new Set<Slot>();
  for (const [slot, span] of late) {
    if (
      blockPoints > 0 &&
      span.count >= blockPoints &&
      (await stretchIsFree(query, slot.id, span.from, span.to))
    ) {
      free.add(slot);
      continue;
    }
    const stamps = await points.packedStamps(slot.id, span.from, span.to);
    if (stamps.size > 0) packed.set(slot, stamps);
  }
  const split = await writeBlocks(
    query,
    candidates.filter((r) => !packed.get(r.slot)?.has(r.ts)),
    blockPoints,
    free,
  );
  for (const r of split.packed) (stored[r.entry] as Uint8Array)[r.point] = 1;
  const inserting = split.raw;
  const conflicts = late.size > 0;
  const insert = `INSERT INTO telemetry_raw (series_id, ts, value)
    SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::float8[])`;
  const ids = new Float64Array(inserting.length);
  const stamps = new Float64Array(inserting.length);
  const values = new Float64Array(inserting.length);
  inserting.forEach((r, i) => {
    ids[i] = r.slot.id;
    stamps[i] = r.ts;
    values[i] = r.value;
  });
  const arrays = [int8Array(ids), int8Array(stamps), float8Array(values)];
  if (!conflicts) {
    // Every reading is newer than its series' newest, under the series' lock: none can collide.
    if (inserting.length > 0) await query(insert, arrays);
    for (const r of inserting) (stored[r.entry] as Uint8Array)[r.point] = 1;
  } else {
    const landed = await query<[number, number]>(
      `${insert} ON CONFLICT DO NOTHING RETURNING series_id::float8, ts::float8`,
      arrays,
    );
    const got = new Set(landed.map(([id, ts]) => `${id}:${ts}`));
    for (const r of inserting)
      if (got.has(`${r.slot.id}:${r.ts}`)) (stored[r.entry] as Uint8Array)[r.point] = 1;
  }

  await summarize(query, blockPoints, slots, rows, stored);
  await updateSeries(query, [...slots.values()]);
  return outcomes(query, parts, slots, stored);
}

/** The batch's series, created when new, locked, with their state (in batch order of first sight). */
async function findSeries(
  query: Query,
  points: PgPoints,
  series: readonly BatchSeries[],
): Promise<Map<string, Slot>> {
  const first = new Map<string, BatchSeries>();
  for (const s of series)
    if (!first.has(key(s.assetId, s.variable))) first.set(key(s.assetId, s.variable), s);
  type Found = [number, string, string, string | null, number | null, number | null];
  const lock = (list: readonly BatchSeries[]) =>
    query<Found>(
      `SELECT s.id::float8, s.asset_id, s.variable, s.unit, s.last_ts::float8, s.rolled_to::float8
         FROM telemetry_series s JOIN unnest($1::text[], $2::text[]) AS k(asset_id, variable)
           ON s.asset_id = k.asset_id AND s.variable = k.variable
        ORDER BY s.id FOR NO KEY UPDATE OF s`,
      [list.map((s) => s.assetId), list.map((s) => s.variable)],
    );
  // The usual case, every series known: one statement. New ones are inserted, then locked too.
  const found = await lock([...first.values()]);
  for (const [, assetId, variable] of found) first.delete(key(assetId, variable));
  const news = [...first.values()];
  const created = new Set<string>();
  if (news.length > 0) {
    const inserted = await query<[string, string]>(
      `INSERT INTO telemetry_series (project_id, asset_id, variable, unit)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[])
       ON CONFLICT (asset_id, variable) DO NOTHING RETURNING asset_id, variable`,
      [
        news.map((s) => s.projectId),
        news.map((s) => s.assetId),
        news.map((s) => s.variable),
        news.map((s) => s.unit ?? null),
      ],
    );
    for (const [assetId, variable] of inserted) created.add(key(assetId, variable));
    // Those another writer made meanwhile are committed now (ON CONFLICT waited for it).
    found.push(...(await lock(news)));
  }
  const slots = new Map<string, Slot>();
  for (const [id, assetId, variable, unit, lastTs, rolledTo] of found) {
    const k = key(assetId, variable);
    const isNew = created.has(k);
    // A series made here has nothing stored and nothing rolled up.
    const { state, pending, derived } = isNew
      ? { state: { rolledTo: NOTHING_ROLLED, replaceFrom: null }, pending: false, derived: true }
      : await stateOfSeries(query, points, [id, lastTs, rolledTo]);
    slots.set(k, {
      id,
      created: isNew,
      committedLastTs: lastTs,
      unit: unit,
      unitChanged: false,
      state,
      pending,
      storeRolledTo: derived && state.replaceFrom === null ? state.rolledTo : null,
      rollsUp: false,
      deferred: false,
      newestTs: null,
      newestValue: 0,
    });
  }
  for (const s of series) {
    const slot = slots.get(key(s.assetId, s.variable));
    if (!slot) throw new Error("telemetry_series row not found after its insert");
    if (s.unit !== undefined && s.unit !== slot.unit) {
      slot.unit = s.unit;
      slot.unitChanged = !slot.created;
    }
  }
  return slots;
}

/**
 * Walks the stored rows (series, ts order): each series' newest reading, and the rollups of the
 * readings this write rolls up itself, merged bucket by bucket (SQLite's summarize).
 */
async function summarize(
  query: Query,
  blockPoints: number,
  slots: Map<string, Slot>,
  rows: readonly { slot: Slot; entry: number; point: number; ts: number; value: number }[],
  stored: readonly Uint8Array[],
): Promise<void> {
  const isStored = (r: { entry: number; point: number }) => stored[r.entry]?.[r.point] === 1;
  if (blockPoints > 0) {
    const counts = new Map<Slot, number>();
    for (const r of rows) if (isStored(r)) counts.set(r.slot, (counts.get(r.slot) ?? 0) + 1);
    for (const slot of slots.values()) slot.rollsUp = (counts.get(slot) ?? 0) >= blockPoints && !slot.pending;
  }
  const backfills: SeriesBuckets[] = [];
  let current: Slot | undefined;
  let backfill: BucketBuilder | undefined;
  const settle = () => {
    if (current && backfill) backfills.push({ seriesId: current.id, buckets: backfill.buckets });
  };
  for (const r of rows) {
    if (!isStored(r)) continue;
    if (r.slot !== current) {
      settle();
      current = r.slot;
      backfill = undefined;
    }
    if (r.ts < r.slot.state.rolledTo || r.slot.rollsUp) {
      backfill ??= new BucketBuilder();
      backfill.add(r.ts, r.value);
    } else {
      r.slot.deferred = true;
    }
    r.slot.newestTs = r.ts;
    r.slot.newestValue = r.value;
  }
  settle();
  await mergeBuckets(query, backfills);
  for (const slot of slots.values()) {
    if (slot.rollsUp && slot.newestTs !== null) {
      slot.storeRolledTo = Math.max(slot.storeRolledTo ?? slot.state.rolledTo, slot.newestTs + 1);
    }
  }
}

/** Units, newest readings and watermarks, one statement for every series that changed. */
async function updateSeries(query: Query, slots: readonly Slot[]): Promise<void> {
  const changed = slots.filter(
    (s) =>
      s.unitChanged ||
      s.storeRolledTo !== null ||
      (s.newestTs !== null && (s.committedLastTs === null || s.newestTs > s.committedLastTs)),
  );
  if (changed.length === 0) return;
  const newer = (s: Slot) =>
    s.newestTs !== null && (s.committedLastTs === null || s.newestTs > s.committedLastTs);
  await query(
    `UPDATE telemetry_series s SET
       unit = CASE WHEN v.set_unit THEN v.unit ELSE s.unit END,
       last_value = CASE WHEN v.last_ts IS NOT NULL AND (s.last_ts IS NULL OR s.last_ts < v.last_ts)
         THEN v.last_value ELSE s.last_value END,
       last_ts = CASE WHEN v.last_ts IS NOT NULL AND (s.last_ts IS NULL OR s.last_ts < v.last_ts)
         THEN v.last_ts ELSE s.last_ts END,
       rolled_to = coalesce(v.rolled_to, s.rolled_to)
     FROM unnest($1::bigint[], $2::boolean[], $3::text[], $4::bigint[], $5::float8[], $6::bigint[])
       AS v(id, set_unit, unit, last_ts, last_value, rolled_to)
     WHERE s.id = v.id`,
    [
      changed.map((s) => s.id),
      changed.map((s) => s.unitChanged),
      changed.map((s) => s.unit),
      changed.map((s) => (newer(s) ? s.newestTs : null)),
      changed.map((s) => (newer(s) ? s.newestValue : null)),
      changed.map((s) => s.storeRolledTo),
    ],
  );
}

/** What each part stored, per batch series; one usage_counters upsert (points per project and period). */
async function outcomes(
  query: Query,
  parts: readonly WritePart[],
  slots: Map<string, Slot>,
  stored: readonly Uint8Array[],
): Promise<WrittenBatch[]> {
  const usage = new Map<string, { project: string; period: string; points: number }>();
  let entry = 0;
  const written = parts.map(({ batch, period }): WrittenBatch => {
    const series: BatchSeries[] = [];
    let accepted = 0;
    let total = 0;
    for (const s of batch.series) {
      const flags = stored[entry++] as Uint8Array;
      total += flags.length;
      let points = 0;
      for (const f of flags) points += f;
      if (points === 0) continue;
      accepted += points;
      const counted = usage.get(`${s.projectId}\u0000${period}`);
      if (counted) counted.points += points;
      else usage.set(`${s.projectId}\u0000${period}`, { project: s.projectId, period, points });
      const slot = slots.get(key(s.assetId, s.variable));
      series.push(storedPart(s, slot?.unit ?? null, points === flags.length ? undefined : flags));
    }
    return {
      result: { accepted, duplicates: total - accepted },
      committed: { source: batch.source, series },
    };
  });
  if (usage.size > 0) {
    // In key order, so that concurrent groups lock the counters in one order.
    const counts = [...usage.values()].sort((a, b) =>
      a.project < b.project
        ? -1
        : a.project > b.project
          ? 1
          : a.period < b.period
            ? -1
            : a.period > b.period
              ? 1
              : 0,
    );
    await query(
      `INSERT INTO usage_counters (project_id, period, telemetry_points)
       SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[])
       ON CONFLICT (project_id, period) DO UPDATE
         SET telemetry_points = usage_counters.telemetry_points + excluded.telemetry_points`,
      [counts.map((c) => c.project), counts.map((c) => c.period), counts.map((c) => c.points)],
    );
  }
  return written;
}
