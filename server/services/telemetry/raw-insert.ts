import { at, num } from "./indexed.ts";
import type { Slot } from "./slot.ts";
import { INSERT_CHUNKS, type WriteStatements } from "./statements.ts";

/** Thrown when the append path met a stored row: the lookups were stale; the caller retries. */
export class AppendConflictError extends Error {}

/**
 * Inserts the rows (series, ts order) into telemetry_raw and marks in `stored` those it stored.
 * Readings newer than their series' committed last_ts cannot collide with a stored row and go in
 * multi-row statements; the rest (backfill, replays) one by one, stored only if their millisecond
 * is free, in telemetry_raw and in the packed blocks (a late reading for a packed block stays raw
 * until the packer merges it). A row repeating the previous one (same series and ts) is a
 * duplicate within the commit.
 */
export function insertRaw(
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
  const argsBySize = new Map(INSERT_CHUNKS.map((size) => [size, new Array<number>(size * 3).fill(0)]));
  const appendPending = (): void => {
    let offset = 0;
    for (const size of INSERT_CHUNKS) {
      const statement = stmts.append.get(size);
      const args = argsBySize.get(size);
      if (!statement || !args) continue;
      while (pending.length - offset >= size) {
        for (let k = 0; k < size; k++) {
          const r = num(pending, offset + k);
          args[3 * k] = num(rowSeries, r);
          args[3 * k + 1] = num(rowTs, r);
          args[3 * k + 2] = num(rowValue, r);
        }
        try {
          statement.run(...args);
        } catch (err) {
          if (!isPrimaryKeyConflict(err)) throw err;
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
      const free =
        !stmts.points.isPacked(series, ts) && stmts.insertOne.run(series, ts, num(rowValue, r)).changes === 1;
      stored[r] = free ? 1 : 0;
    }
  }
  appendPending();
}

function isPrimaryKeyConflict(err: unknown): boolean {
  return err instanceof Error && "code" in err && err.code === "SQLITE_CONSTRAINT_PRIMARYKEY";
}
