import { at, num } from "./indexed.ts";
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
  const entries = entrySlot.length;
  const start = new Uint32Array(slots.length + 1);
  for (let e = 0; e < entries; e++) {
    const rank = num(rankOfSlot, num(entrySlot, e));
    start[rank + 1] = num(start, rank + 1) + num(entryRow, e + 1) - num(entryRow, e);
  }
  for (let k = 0; k < slots.length; k++) start[k + 1] = num(start, k + 1) + num(start, k);
  const next = start.slice(0, slots.length);
  const order = new Uint32Array(num(entryRow, entries));
  for (let e = 0; e < entries; e++) {
    const rank = num(rankOfSlot, num(entrySlot, e));
    let position = num(next, rank);
    for (let r = num(entryRow, e); r < num(entryRow, e + 1); r++) order[position++] = r;
    next[rank] = position;
  }
  for (let k = 0; k < slots.length; k++) {
    const from = num(start, k);
    const to = num(start, k + 1);
    let ascending = true;
    for (let i = from + 1; i < to && ascending; i++) {
      ascending = num(rowTs, num(order, i - 1)) <= num(rowTs, num(order, i));
    }
    if (!ascending) order.subarray(from, to).sort((a, b) => num(rowTs, a) - num(rowTs, b) || a - b);
  }
  return order;
}
