import type { BatchSeries, TelemetryBatch } from "../../../../shared/telemetry/batch.ts";
import { notFound } from "../../../errors.ts";
import type { WrittenBatch } from "../../ports/telemetry-store.ts";
import { BucketBuilder } from "../../telemetry/buckets.ts";
import { storedPart } from "../../telemetry/stored-part.ts";
import type { TelemetryInbox } from "./inbox.ts";
import { at, num } from "./indexed.ts";
import type { SeriesEntry, TelemetryLookups } from "./lookups.ts";
import { type BlockWrites, insertRaw } from "./raw-insert.ts";
import type { RollupTracker } from "./rollup-tracker.ts";
import { mergeBuckets } from "./rollups.ts";
import { seriesTimeOrder } from "./row-order.ts";
import type { Slot } from "./slot.ts";
import type { WriteStatements } from "./statements.ts";

/** One request's outcome (the port's WrittenBatch). */
export type WrittenJob = WrittenBatch;

export type WriteOutcome = {
  jobs: WrittenJob[];
  /** New readings written straight into packed blocks (raw-insert.ts). */
  blocks: BlockWrites;
  /** Publishes the commit's series state to the lookups; call only once the transaction committed. */
  committed(): void;
};

export type WriteOptions = {
  /**
   * Multi-row inserts for readings newer than their series' committed last_ts, which cannot
   * collide with a stored row. Off on the retry path, where every row is inserted on its own.
   */
  appendFastPath: boolean;
  /** New readings per series and commit from which they are written as packed blocks; 0: never. */
  blockPoints: number;
};

/** One request's batch and the usage_counters period (YYYY-MM) its points count toward. */
export type WriteJob = { batch: TelemetryBatch; period: string };

/**
 * Writes the jobs' points inside the caller's transaction:
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
  inbox: TelemetryInbox,
  jobs: readonly WriteJob[],
  options: WriteOptions,
): WriteOutcome {
  let entryCount = 0;
  let rowCount = 0;
  let checkedAsset: string | undefined;
  let checkedProject: string | undefined;
  for (const { batch } of jobs) {
    entryCount += batch.series.length;
    for (const s of batch.series) {
      rowCount += s.points.length;
      // Validated when the request arrived; the asset may have been deleted (or moved) since.
      // A batch's series mostly share one asset: it is looked up once (the key is a fresh string
      // each time, hashed anew).
      if (s.assetId !== checkedAsset || s.projectId !== checkedProject) {
        if (lookups.projectOf(s.assetId) !== s.projectId) throw notFound("asset");
        checkedAsset = s.assetId;
        checkedProject = s.projectId;
      }
    }
  }

  const slots: Slot[] = [];
  const slotIndex = new Map<string, Map<string, number>>();
  const slotFor = (s: BatchSeries): number => {
    let byVariable = slotIndex.get(s.assetId);
    if (!byVariable) {
      byVariable = new Map();
      slotIndex.set(s.assetId, byVariable);
    }
    let index = byVariable.get(s.variable);
    if (index === undefined) {
      // Series made earlier in this commit are found above, never here: lookups hold committed rows only.
      const entry: SeriesEntry | undefined = lookups.series(s.assetId, s.variable);
      const created = !entry;
      const id = entry ? entry.id : createSeries(stmts, s);
      index = slots.length;
      slots.push({
        id,
        assetId: s.assetId,
        variable: s.variable,
        projectId: s.projectId,
        created,
        committedLastTs: entry ? entry.lastTs : null,
        unit: entry ? entry.unit : (s.unit ?? null),
        unitChanged: false,
        rolledTo: tracker.stateOf(id).rolledTo,
        deferred: undefined,
        rollsUp: false,
        newestTs: null,
        newestValue: 0,
      });
      byVariable.set(s.variable, index);
    }
    const slot = at(slots, index);
    if (s.unit !== undefined && s.unit !== slot.unit) {
      slot.unit = s.unit;
      slot.unitChanged = !slot.created;
    }
    return index;
  };

  // Entries (the jobs' series, in order) and their rows: entry e owns rows [entryRow[e], entryRow[e + 1]).
  const entrySlot = new Int32Array(entryCount);
  const entryRow = new Int32Array(entryCount + 1);
  const rowSlot = new Int32Array(rowCount);
  const rowSeries = new Int32Array(rowCount);
  // A row's run: its batch's, or that of a batch it continues (runsOf); a block may span one run.
  const rowRun = new Int32Array(rowCount);
  const runs = runsOf(jobs);
  const rowTs = new Float64Array(rowCount);
  const rowValue = new Float64Array(rowCount);
  let entry = 0;
  let row = 0;
  // A reading not newer than its series' newest committed one: checked against stored readings.
  let holdsOlder = false;
  for (const [j, { batch }] of jobs.entries()) {
    const run = num(runs, j);
    for (const s of batch.series) {
      const slot = slotFor(s);
      const { id: seriesId, committedLastTs } = at(slots, slot);
      entrySlot[entry] = slot;
      entryRow[entry] = row;
      const points = s.points;
      for (let k = 0; k < points.length; k++) {
        const point = at(points, k);
        const ts = point[0];
        if (committedLastTs !== null && ts <= committedLastTs) holdsOlder = true;
        rowSlot[row] = slot;
        rowSeries[row] = seriesId;
        rowRun[row] = run;
        rowTs[row] = ts;
        rowValue[row] = point[1];
        row++;
      }
      entry++;
    }
  }
  entryRow[entryCount] = row;

  const order = seriesTimeOrder(slots, entrySlot, entryRow, rowTs);
  // Older readings are checked against stored ones, and inbox rows count as stored (inbox.ts).
  if (!options.appendFastPath || holdsOlder) inbox.settle();

  const stored = new Uint8Array(rowCount);
  const blocks = insertRaw(
    stmts,
    options.appendFastPath,
    options.appendFastPath ? options.blockPoints : 0,
    slots,
    order,
    rowSlot,
    rowSeries,
    rowRun,
    rowTs,
    rowValue,
    stored,
  );
  summarize(tracker, options.blockPoints, slots, order, rowSlot, rowTs, rowValue, stored);

  for (const slot of slots) {
    if (slot.unitChanged) stmts.setUnit.run(slot.unit, slot.id);
    if (slot.newestTs !== null && (slot.committedLastTs === null || slot.newestTs > slot.committedLastTs)) {
      stmts.setLast.run(slot.newestTs, slot.newestValue, slot.id, slot.newestTs);
    }
  }
  const written: WrittenJob[] = [];
  // Points stored per project and period (billing), counted here rather than ever scanned.
  const usage = new Map<string, Map<string, number>>();
  entry = 0;
  for (const { batch, period } of jobs) {
    let byProject = usage.get(period);
    if (!byProject) {
      byProject = new Map();
      usage.set(period, byProject);
    }
    const series: BatchSeries[] = [];
    let accepted = 0;
    let total = 0;
    for (const s of batch.series) {
      const first = num(entryRow, entry);
      const count = num(entryRow, entry + 1) - first;
      const slot = at(slots, num(entrySlot, entry));
      entry++;
      total += count;
      let points = 0;
      for (let r = first; r < first + count; r++) points += num(stored, r);
      if (points === 0) continue;
      accepted += points;
      byProject.set(s.projectId, (byProject.get(s.projectId) ?? 0) + points);
      series.push(
        storedPart(s, slot.unit, points === count ? undefined : stored.subarray(first, first + count)),
      );
    }
    written.push({
      result: { accepted, duplicates: total - accepted },
      committed: { source: batch.source, series },
    });
  }
  for (const [period, byProject] of usage) {
    for (const [projectId, points] of byProject) stmts.countUsage.run(projectId, period, points);
  }

  return {
    jobs: written,
    blocks,
    committed: () => {
      for (const slot of slots) {
        const lastTs =
          slot.newestTs !== null && (slot.committedLastTs === null || slot.newestTs > slot.committedLastTs)
            ? slot.newestTs
            : slot.committedLastTs;
        lookups.remember(slot.assetId, slot.variable, { id: slot.id, unit: slot.unit, lastTs });
        if (slot.rollsUp && slot.newestTs !== null) tracker.rolledUpTo(slot.id, slot.newestTs + 1);
        else if (slot.deferred)
          tracker.deferred(slot.id, slot.rolledTo, slot.deferred.ts, slot.deferred.values);
      }
    },
  };
}

/**
 * Each job's run: jobs of one agent (`sequence.stream`) whose numbers follow one another share a
 * run, and any other job is one of its own. An agent numbers its batches as it makes them, so
 * nothing of that agent lies between two batches of a run, and their readings of a series may
 * make one block; between two runs, a batch still on its way may (raw-insert.ts).
 */
function runsOf(jobs: readonly WriteJob[]): Int32Array {
  const runs = new Int32Array(jobs.length);
  const sequenced: number[] = [];
  jobs.forEach((job, j) => {
    runs[j] = j;
    if (job.batch.sequence) sequenced.push(j);
  });
  const sequence = (j: number) => at(jobs, j).batch.sequence ?? { stream: "", seq: 0 };
  sequenced.sort((a, b) => {
    const x = sequence(a);
    const y = sequence(b);
    return x.stream < y.stream ? -1 : x.stream > y.stream ? 1 : x.seq - y.seq;
  });
  for (let k = 1; k < sequenced.length; k++) {
    const previous = num(sequenced, k - 1);
    const j = num(sequenced, k);
    const [x, y] = [sequence(previous), sequence(j)];
    if (x.stream === y.stream && y.seq === x.seq + 1) runs[j] = num(runs, previous);
  }
  return runs;
}

function createSeries(stmts: WriteStatements, s: BatchSeries): number {
  const row = stmts.createSeries.get(s.projectId, s.assetId, s.variable, s.unit ?? null);
  if (!row) throw new Error("telemetry_series insert returned no id");
  return row.id;
}

/**
 * Walks the stored rows (series, ts order): the newest reading per series, and the rollups of
 * backfilled readings, merged per touched bucket.
 *
 * A series with `blockPoints` or more stored rows in the commit and nothing pending is rolled up
 * here whole, like backfill: a few bucket upserts for hundreds of readings, where the roll-up
 * pass would read them back (decoding their blocks) a moment later.
 */
function summarize(
  tracker: RollupTracker,
  blockPoints: number,
  slots: Slot[],
  order: Uint32Array,
  rowSlot: Int32Array,
  rowTs: Float64Array,
  rowValue: Float64Array,
  stored: Uint8Array,
): void {
  // Typed arrays of the commit's own size, walked by index: `?? 0` never applies (this loop ran
  // at ~0.3 µs a row through the bounds-checking helpers, a tenth of a batch's write cost).
  if (blockPoints > 0) {
    const storedPerSlot = new Int32Array(slots.length);
    for (let k = 0; k < order.length; k++) {
      const r = order[k] ?? 0;
      const slot = rowSlot[r] ?? 0;
      if (stored[r] === 1) storedPerSlot[slot] = (storedPerSlot[slot] ?? 0) + 1;
    }
    slots.forEach((slot, i) => {
      slot.rollsUp = num(storedPerSlot, i) >= blockPoints && !tracker.isPending(slot.id);
    });
  }
  let current: Slot | undefined;
  let backfill: BucketBuilder | undefined;
  const settle = () => {
    if (current && backfill) mergeBuckets(tracker.statements, current.id, backfill.buckets);
  };
  let currentIndex = -1;
  for (let k = 0; k < order.length; k++) {
    const r = order[k] ?? 0;
    if (stored[r] !== 1) continue;
    const index = rowSlot[r] ?? 0;
    if (index !== currentIndex) {
      settle();
      currentIndex = index;
      current = at(slots, index);
      backfill = undefined;
    }
    const slot = current ?? at(slots, index);
    const ts = rowTs[r] ?? 0;
    const value = rowValue[r] ?? 0;
    if (ts < slot.rolledTo || slot.rollsUp) {
      backfill ??= new BucketBuilder();
      backfill.add(ts, value);
    } else {
      slot.deferred ??= { ts: [], values: [] };
      slot.deferred.ts.push(ts);
      slot.deferred.values.push(value);
    }
    // Ascending ts within a series: the last stored row is the newest.
    slot.newestTs = ts;
    slot.newestValue = value;
  }
  settle();
}
