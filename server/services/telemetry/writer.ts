import { notFound } from "../../errors.ts";
import { at, num } from "./indexed.ts";
import type { SeriesEntry, TelemetryLookups } from "./lookups.ts";
import { insertRaw } from "./raw-insert.ts";
import type { RollupTracker } from "./rollup-tracker.ts";
import { BucketBuilder, mergeBuckets } from "./rollups.ts";
import { seriesTimeOrder } from "./row-order.ts";
import type { Slot } from "./slot.ts";
import type { WriteStatements } from "./statements.ts";
import type { TelemetryItem, WriteResult } from "./types.ts";

/**
 * One request's outcome. `stored[i]` is 1 when the request's i-th reading (payloads in order,
 * readings in order) was stored; `units` gives the series' unit for stored readings that came
 * without one, as [i, unit] pairs. buildEvents() turns this and the request into its events.
 */
export type WrittenJob = { result: WriteResult; stored: Uint8Array; units: [number, string][] };

export type WriteOutcome = {
  jobs: WrittenJob[];
  /** Publishes the commit's series state to the lookups; call only once the transaction committed. */
  committed(): void;
};

export type WriteOptions = {
  /**
   * Multi-row inserts for readings newer than their series' committed last_ts, which cannot
   * collide with a stored row. Off on the retry path, where every row is inserted on its own.
   */
  appendFastPath: boolean;
};

/** One request's payloads and the usage_counters period (YYYY-MM) its points count toward. */
export type WriteJob = { items: readonly TelemetryItem[]; period: string };

/**
 * Writes the jobs' readings inside the caller's transaction:
 * - raw rows in (series, ts) order, so each series' new rows share pages (DESIGN.md, Storage);
 * - duplicates (same series and millisecond, stored already or earlier in this commit) are not
 *   stored and count nowhere, so rollups and billing never count a point twice;
 * - backfilled readings (older than their series' roll-up watermark) are merged into the rollups
 *   here, one upsert per touched 5-minute bucket; newer ones are left to the roll-up pass
 *   (RollupTracker), so live traffic dirties one page per series, not three;
 * - the series' last_ts/last_value when a stored reading is newer, and one usage_counters upsert
 *   per project.
 */
export function writeTelemetry(
  stmts: WriteStatements,
  lookups: TelemetryLookups,
  tracker: RollupTracker,
  jobs: readonly WriteJob[],
  options: WriteOptions,
): WriteOutcome {
  let rowCount = 0;
  let payloadCount = 0;
  for (const { items } of jobs) {
    payloadCount += items.length;
    for (const item of items) {
      rowCount += item.readings.length;
      // Validated when the request arrived; the asset may have been deleted (or moved) since.
      if (lookups.projectOf(item.assetId) !== item.projectId) throw notFound("asset");
    }
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
        rolledTo: tracker.stateOf(id).rolledTo,
        deferred: false,
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
  for (const { items } of jobs) {
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

  const order = seriesTimeOrder(slots, rowSlot, rowTs);

  const stored = new Uint8Array(rowCount);
  insertRaw(stmts, options.appendFastPath, slots, order, rowSlot, rowSeries, rowTs, rowValue, stored);
  summarize(tracker, slots, order, rowSlot, rowTs, rowValue, stored);

  for (const slot of slots) {
    if (slot.unitChanged) stmts.setUnit.run(slot.unit, slot.id);
    if (slot.newestTs !== null && (slot.committedLastTs === null || slot.newestTs > slot.committedLastTs)) {
      stmts.setLast.run(slot.newestTs, slot.newestValue, slot.id, slot.newestTs);
    }
  }
  const written: WrittenJob[] = [];
  // Points stored per project and period (billing), counted here rather than ever scanned.
  const usage = new Map<string, Map<string, number>>();
  payload = 0;
  for (const { items, period } of jobs) {
    let byProject = usage.get(period);
    if (!byProject) {
      byProject = new Map();
      usage.set(period, byProject);
    }
    const first = num(payloadStart, payload);
    const last = num(payloadStart, payload + items.length);
    const jobStored = stored.slice(first, last);
    const units: [number, string][] = [];
    let accepted = 0;
    for (const item of items) {
      const start = num(payloadStart, payload);
      const end = num(payloadStart, payload + 1);
      payload++;
      let points = 0;
      for (let r = start; r < end; r++) {
        if (stored[r] !== 1) continue;
        points++;
        const unit = at(slots, num(rowSlot, r)).unit;
        if (at(item.readings, r - start).unit === undefined && unit !== null) units.push([r - first, unit]);
      }
      accepted += points;
      if (points > 0) byProject.set(item.projectId, (byProject.get(item.projectId) ?? 0) + points);
    }
    written.push({ result: { accepted, duplicates: last - first - accepted }, stored: jobStored, units });
  }
  for (const [period, byProject] of usage) {
    for (const [projectId, points] of byProject) stmts.countUsage.run(projectId, period, points);
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
        if (slot.deferred) tracker.markPending(slot.id);
      }
    },
  };
}

function createSeries(stmts: WriteStatements, item: TelemetryItem, variable: string, unit?: string): number {
  const row = stmts.createSeries.get(item.projectId, item.assetId, variable, unit ?? null);
  if (!row) throw new Error("telemetry_series insert returned no id");
  return row.id;
}

/**
 * Walks the stored rows (series, ts order): the newest reading per series, and the rollups of
 * backfilled readings, merged per touched bucket.
 */
function summarize(
  tracker: RollupTracker,
  slots: Slot[],
  order: Uint32Array,
  rowSlot: Int32Array,
  rowTs: Float64Array,
  rowValue: Float64Array,
  stored: Uint8Array,
): void {
  let current: Slot | undefined;
  let backfill: BucketBuilder | undefined;
  const settle = () => {
    if (current && backfill) mergeBuckets(tracker.statements, current.id, backfill.buckets);
  };
  for (const r of order) {
    if (stored[r] !== 1) continue;
    const slot = at(slots, num(rowSlot, r));
    if (slot !== current) {
      settle();
      current = slot;
      backfill = undefined;
    }
    const ts = num(rowTs, r);
    const value = num(rowValue, r);
    if (ts < slot.rolledTo) {
      backfill ??= new BucketBuilder();
      backfill.add(ts, value);
    } else {
      slot.deferred = true;
    }
    // Ascending ts within a series: the last stored row is the newest.
    slot.newestTs = ts;
    slot.newestValue = value;
  }
  settle();
}
