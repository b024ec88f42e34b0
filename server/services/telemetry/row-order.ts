import { at, num } from "./indexed.ts";
import type { Slot } from "./slot.ts";

/**
 * Row indexes in (series id, ts) order; ties (duplicates) keep request order, so the first of
 * them is the one stored. Rows are grouped by series with a stable counting sort; a group whose
 * timestamps already ascend in request order (the usual case) needs no further sorting.
 */
export function seriesTimeOrder(
  slots: readonly Slot[],
  rowSlot: Int32Array,
  rowTs: Float64Array,
): Uint32Array {
  const bySeriesId = slots.map((_, i) => i).sort((a, b) => at(slots, a).id - at(slots, b).id);
  const rankOfSlot = new Uint32Array(slots.length);
  bySeriesId.forEach((slot, rank) => {
    rankOfSlot[slot] = rank;
  });
  const start = new Uint32Array(slots.length + 1);
  for (let r = 0; r < rowSlot.length; r++) {
    const rank = num(rankOfSlot, num(rowSlot, r));
    start[rank + 1] = num(start, rank + 1) + 1;
  }
  for (let k = 0; k < slots.length; k++) start[k + 1] = num(start, k + 1) + num(start, k);
  const next = start.slice(0, slots.length);
  const order = new Uint32Array(rowSlot.length);
  for (let r = 0; r < rowSlot.length; r++) {
    const rank = num(rankOfSlot, num(rowSlot, r));
    const position = num(next, rank);
    order[position] = r;
    next[rank] = position + 1;
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
