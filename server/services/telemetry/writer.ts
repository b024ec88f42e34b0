import type { TelemetryEvent } from "../events.ts";
import { BUCKET_1H_MS, BUCKET_5M_MS } from "./limits.ts";
import type { SeriesEntry, TelemetryLookups } from "./lookups.ts";
import { INSERT_CHUNKS, type WriteStatements } from "./statements.ts";
import type { TelemetryItem, WriteResult } from "./types.ts";

/** A series touched by one commit. */
type Slot = {
  id: number;
  assetId: string;
  variable: string;
  projectId: string;
  created: boolean;
  committedLastTs: number | null;
  unit: string | null;
  unitChanged: boolean;
  /** Newest reading stored by this commit. */
  newestTs: number | null;
  newestValue: number;
};

export type WrittenJob = { result: WriteResult; events: TelemetryEvent[] };

export type WriteOutcome = {
  jobs: WrittenJob[];
  /** Publishes the commit's series state to the lookups; call only once the transaction committed. */
  committed(): void;
};

export type WriteOptions = {
  /** usage_counters period (YYYY-MM, UTC month of ingest). */
  period: string;
  /**
   * Multi-row inserts for readings newer than their series' committed last_ts, which cannot
   * collide with a stored row. Off on the retry path, where every row is inserted on its own.
   */
  appendFastPath: boolean;
};

/** Thrown when the append path met a stored row: the lookups were stale; the caller retries. */
export class AppendConflictError extends Error {}

/**
 * Writes the jobs' readings inside the caller's transaction:
 * - raw rows in (series, ts) order, so each series' new rows share pages (DESIGN.md, Storage);
 * - duplicates (same series and millisecond, stored already or earlier in this commit) are not
 *   stored and count nowhere, so rollups and billing never count a point twice;
 * - one upsert per touched (series, 5-minute bucket) and (series, hour), not one per reading;
 * - the series' last_ts/last_value when a stored reading is newer, and one usage_counters upsert
 *   per project.
 */
export function writeTelemetry(
  stmts: WriteStatements,
  lookups: TelemetryLookups,
  jobs: readonly (readonly TelemetryItem[])[],
  options: WriteOptions,
): WriteOutcome {
  let rowCount = 0;
  let payloadCount = 0;
  for (const items of jobs) {
    payloadCount += items.length;
    for (const item of items) rowCount += item.readings.length;
  }

  const slots: Slot[] = [];
  const slotIndex = new Map<string, Map<string, number>>();
  const slotFor = (item: TelemetryItem, variable: string, unit: string | undefined): number => {
    let byVariable = slotIndex.get(item.assetId);
    if (!byVariable) {
      byVariable = new Map();
      slotIndex.set(item.assetId, byVariable);
    }
    let index = byVariable.get(variable);
    if (index === undefined) {
      // Series made earlier in this commit are found above, never here: lookups hold committed rows only.
      const entry: SeriesEntry | undefined = lookups.series(item.assetId, variable);
      const created = !entry;
      const id = entry ? entry.id : createSeries(stmts, item, variable, unit);
      index = slots.length;
      slots.push({
        id,
        assetId: item.assetId,
        variable,
        projectId: item.projectId,
        created,
        committedLastTs: entry ? entry.lastTs : null,
        unit: entry ? entry.unit : (unit ?? null),
        unitChanged: false,
        newestTs: null,
        newestValue: 0,
      });
      byVariable.set(variable, index);
    }
    const slot = at(slots, index);
    if (unit !== undefined && unit !== slot.unit) {
      slot.unit = unit;
      slot.unitChanged = !slot.created;
    }
    return index;
  };

  // Rows in request order; payload p owns rows [payloadStart[p], payloadStart[p + 1]).
  const rowSlot = new Int32Array(rowCount);
  const rowSeries = new Int32Array(rowCount);
  const rowTs = new Float64Array(rowCount);
  const rowValue = new Float64Array(rowCount);
  const payloadStart = new Int32Array(payloadCount + 1);
  let row = 0;
  let payload = 0;
  for (const items of jobs) {
    for (const item of items) {
      payloadStart[payload++] = row;
      for (const reading of item.readings) {
        const slot = slotFor(item, reading.variable, reading.unit);
        rowSlot[row] = slot;
        rowSeries[row] = at(slots, slot).id;
        rowTs[row] = item.ts;
        rowValue[row] = reading.value;
        row++;
      }
    }
  }
  payloadStart[payloadCount] = row;

  const order = new Uint32Array(rowCount);
  for (let i = 0; i < rowCount; i++) order[i] = i;
  // Ties (duplicates) keep request order, so the first of them is the one stored.
  order.sort((a, b) => num(rowSeries, a) - num(rowSeries, b) || num(rowTs, a) - num(rowTs, b) || a - b);

  const stored = new Uint8Array(rowCount);
  insertRaw(stmts, options.appendFastPath, slots, order, rowSlot, rowSeries, rowTs, rowValue, stored);
  const usage = rollUp(stmts, slots, order, rowSlot, rowSeries, rowTs, rowValue, stored);

  for (const slot of slots) {
    if (slot.unitChanged) stmts.setUnit.run(slot.unit, slot.id);
    if (slot.newestTs !== null && (slot.committedLastTs === null || slot.newestTs > slot.committedLastTs)) {
      stmts.setLast.run(slot.newestTs, slot.newestValue, slot.id, slot.newestTs);
    }
  }
  for (const [projectId, points] of usage) stmts.countUsage.run(projectId, options.period, points);

  const written: WrittenJob[] = [];
  payload = 0;
  for (const items of jobs) {
    let accepted = 0;
    let total = 0;
    const events: TelemetryEvent[] = [];
    for (const item of items) {
      const start = num(payloadStart, payload);
      const end = num(payloadStart, payload + 1);
      payload++;
      total += end - start;
      const readings: TelemetryEvent["readings"] = [];
      for (let r = start; r < end; r++) {
        if (stored[r] !== 1) continue;
        const reading = at(item.readings, r - start);
        const unit = reading.unit ?? at(slots, num(rowSlot, r)).unit ?? undefined;
        readings.push(
          unit === undefined ? { variable: reading.variable, value: reading.value } : { ...reading, unit },
        );
      }
      accepted += readings.length;
      if (readings.length > 0) {
        events.push({
          projectId: item.projectId,
          assetId: item.assetId,
          timestamp: new Date(item.ts).toISOString(),
          readings,
          source: item.source ?? "http",
        });
      }
    }
    written.push({ result: { accepted, duplicates: total - accepted }, events });
  }

  return {
    jobs: written,
    committed: () => {
      for (const slot of slots) {
        const lastTs =
          slot.newestTs !== null && (slot.committedLastTs === null || slot.newestTs > slot.committedLastTs)
            ? slot.newestTs
            : slot.committedLastTs;
        lookups.remember(slot.assetId, slot.variable, { id: slot.id, unit: slot.unit, lastTs });
      }
    },
  };
}

function createSeries(stmts: WriteStatements, item: TelemetryItem, variable: string, unit?: string): number {
  const row = stmts.createSeries.get(item.projectId, item.assetId, variable, unit ?? null);
  if (!row) throw new Error("telemetry_series insert returned no id");
  return row.id;
}

function insertRaw(
  stmts: WriteStatements,
  appendFastPath: boolean,
  slots: readonly Slot[],
  order: Uint32Array,
  rowSlot: Int32Array,
  rowSeries: Int32Array,
  rowTs: Float64Array,
  rowValue: Float64Array,
  stored: Uint8Array,
): void {
  const pending: number[] = [];
  const appendPending = (): void => {
    let offset = 0;
    for (const size of INSERT_CHUNKS) {
      const statement = stmts.append.get(size);
      if (!statement) continue;
      while (pending.length - offset >= size) {
        const args: number[] = [];
        for (let k = offset; k < offset + size; k++) {
          const r = num(pending, k);
          args.push(num(rowSeries, r), num(rowTs, r), num(rowValue, r));
        }
        if (statement.run(...args).changes !== size) {
          throw new AppendConflictError("a reading newer than its series' last_ts was already stored");
        }
        offset += size;
      }
    }
    pending.length = 0;
  };

  let previousSeries = -1;
  let previousTs = Number.NaN;
  for (const r of order) {
    const series = num(rowSeries, r);
    const ts = num(rowTs, r);
    if (series === previousSeries && ts === previousTs) continue;
    previousSeries = series;
    previousTs = ts;
    const committedLastTs = at(slots, num(rowSlot, r)).committedLastTs;
    if (appendFastPath && (committedLastTs === null || ts > committedLastTs)) {
      stored[r] = 1;
      pending.push(r);
      if (pending.length === INSERT_CHUNKS[0]) appendPending();
    } else {
      // A backfilled or replayed reading: stored only if that millisecond is still free.
      stored[r] = stmts.insertOne.run(series, ts, num(rowValue, r)).changes === 1 ? 1 : 0;
    }
  }
  appendPending();
}

type Bucket = { series: number; start: number; count: number; sum: number; min: number; max: number };

/** Rolls the stored rows up (they arrive in series, ts order); returns points stored per project. */
function rollUp(
  stmts: WriteStatements,
  slots: Slot[],
  order: Uint32Array,
  rowSlot: Int32Array,
  rowSeries: Int32Array,
  rowTs: Float64Array,
  rowValue: Float64Array,
  stored: Uint8Array,
): Map<string, number> {
  const usage = new Map<string, number>();
  const b5: Bucket = { series: -1, start: -1, count: 0, sum: 0, min: 0, max: 0 };
  const b1h: Bucket = { series: -1, start: -1, count: 0, sum: 0, min: 0, max: 0 };
  const emit = (b: Bucket, upsert: WriteStatements["rollup5m"]) => {
    if (b.count > 0) upsert.run(b.series, b.start, b.count, b.sum, b.min, b.max);
  };
  const add = (b: Bucket, upsert: WriteStatements["rollup5m"], series: number, start: number, v: number) => {
    if (b.series !== series || b.start !== start) {
      emit(b, upsert);
      b.series = series;
      b.start = start;
      b.count = 0;
      b.sum = 0;
      b.min = v;
      b.max = v;
    }
    b.count++;
    b.sum += v;
    if (v < b.min) b.min = v;
    if (v > b.max) b.max = v;
  };
  let lastSlot = -1;
  let slotPoints = 0;
  const settle = () => {
    if (lastSlot < 0 || slotPoints === 0) return;
    const projectId = at(slots, lastSlot).projectId;
    usage.set(projectId, (usage.get(projectId) ?? 0) + slotPoints);
  };
  for (const r of order) {
    if (stored[r] !== 1) continue;
    const series = num(rowSeries, r);
    const ts = num(rowTs, r);
    const value = num(rowValue, r);
    add(b5, stmts.rollup5m, series, ts - (ts % BUCKET_5M_MS), value);
    add(b1h, stmts.rollup1h, series, ts - (ts % BUCKET_1H_MS), value);
    const slotIndex = num(rowSlot, r);
    if (slotIndex !== lastSlot) {
      settle();
      lastSlot = slotIndex;
      slotPoints = 0;
    }
    slotPoints++;
    // Ascending ts within a series: the last stored row is the newest.
    const slot = at(slots, slotIndex);
    slot.newestTs = ts;
    slot.newestValue = value;
  }
  settle();
  emit(b5, stmts.rollup5m);
  emit(b1h, stmts.rollup1h);
  return usage;
}

/** Indexed reads the type checker cannot prove in range (noUncheckedIndexedAccess). */
function at<T>(list: readonly T[], index: number): T {
  const value = list[index];
  if (value === undefined) throw new RangeError(`index ${index} out of range`);
  return value;
}

function num(list: ArrayLike<number>, index: number): number {
  const value = list[index];
  if (value === undefined) throw new RangeError(`index ${index} out of range`);
  return value;
}
