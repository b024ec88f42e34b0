import { at } from "./indexed.ts";
import type { Slot } from "./slot.ts";

/**
 * Row indexes in (series id, ts) order; ties (duplicates) keep request order, so the first of
 * them is the one stored. Rows come as entries (a batch series: one slot, consecutive rows
 * [entryRow[e], entryRow[e + 1])), so a stable counting sort places whole entries by series; a
 * series whose timestamps then ascend (the usual case: one entry, in time order) needs no sorting.
 */
export function seriesTimeOrder(
  slots: readonly Slot[],
  entrySlot: Int32Array,
  entryRow: Int32Array,
  rowTs: Float64Array,
): Uint32Array {
  const bySeriesId = slots.map((_, i) => i).sort((a, b) => at(slots, a).id - at(slots, b).id);
  const rankOfSlot = new Uint32Array(slots.length);
  bySeriesId.forEach((slot, rank) => {
    rankOfSlot[slot] = rank;
  });
  // Walked by index over the commit's own typed arrays, in range: `?? 0` never applies (a shared
  // checked helper here saw four array types and was 1.5% of the main thread under MQTT ingest).
  const entries = entrySlot.length;
  const start = new Uint32Array(slots.length + 1);
  for (let e = 0; e < entries; e++) {
    const rank = rankOfSlot[entrySlot[e] ?? 0] ?? 0;
    start[rank + 1] = (start[rank + 1] ?? 0) + (entryRow[e + 1] ?? 0) - (entryRow[e] ?? 0);
  }
  for (let k = 0; k < slots.length; k++) start[k + 1] = (start[k + 1] ?? 0) + (start[k] ?? 0);
  const next = start.slice(0, slots.length);
  const order = new Uint32Array(entryRow[entries] ?? 0);
  for (let e = 0; e < entries; e++) {
    const rank = rankOfSlot[entrySlot[e] ?? 0] ?? 0;
    let position = next[rank] ?? 0;
    for (let r = entryRow[e] ?? 0; r < (entryRow[e + 1] ?? 0); r++) order[position++] = r;
    next[rank] = position;
  }
  for (let k = 0; k < slots.length; k++) {
    const from = start[k] ?? 0;
    const to = start[k + 1] ?? 0;
    let ascending = true;
    for (let i = from + 1; i < to && ascending; i++) {
      ascending = (rowTs[order[i - 1] ?? 0] ?? 0) <= (rowTs[order[i] ?? 0] ?? 0);
    }
    if (!ascending) order.subarray(from, to).sort((a, b) => (rowTs[a] ?? 0) - (rowTs[b] ?? 0) || a - b);
  }
  return order;
}
