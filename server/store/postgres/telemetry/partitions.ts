import type { Pool } from "pg";
import { DAY_MS } from "../../telemetry/buckets.ts";

/** Days made ahead of today (UTC) when the writer starts and then every hour. */
export const PARTITION_DAYS_AHEAD = 3;

/** The UTC day (days since the epoch) holding `ts`. */
export const dayOf = (ts: number): number => Math.floor(ts / DAY_MS);

/**
 * The day partitions of telemetry_raw this process knows exist (migration 0002): a batch whose
 * days are all known costs no statement. Missing days are made by
 * caudal_ensure_telemetry_partitions on a connection of their own, committed before the batch's
 * transaction (a rolled-back write then never leaves this cache believing in a day it undid).
 * Another instance's retention may drop a day this one knows: an insert refused for want of a
 * partition forgets every day and is retried once (see write-batch.ts).
 */
export class PartitionDays {
  readonly #pool: Pool;
  readonly #known = new Set<number>();

  constructor(pool: Pool) {
    this.#pool = pool;
  }

  /** Makes sure the days holding these instants have their partitions. */
  async ensure(instants: Iterable<number>): Promise<void> {
    const missing = new Set<number>();
    for (const ts of instants) {
      const day = dayOf(ts);
      if (!this.#known.has(day)) missing.add(day);
    }
    if (missing.size === 0) return;
    // One call per run of consecutive days (a batch spans one or two days, a backlog a few).
    const days = [...missing].sort((a, b) => a - b);
    let start = 0;
    while (start < days.length) {
      let end = start;
      while (end + 1 < days.length && days[end + 1] === (days[end] ?? 0) + 1) end++;
      const first = days[start] ?? 0;
      const last = days[end] ?? 0;
      await this.#pool.query("SELECT caudal_ensure_telemetry_partitions($1, $2)", [
        first * DAY_MS,
        (last + 1) * DAY_MS - 1,
      ]);
      for (let d = first; d <= last; d++) this.#known.add(d);
      start = end + 1;
    }
  }

  /** Today and the next PARTITION_DAYS_AHEAD days. */
  ahead(nowMs: number): Promise<void> {
    const today = dayOf(nowMs);
    const days: number[] = [];
    for (let d = today; d <= today + PARTITION_DAYS_AHEAD; d++) days.push(d * DAY_MS);
    return this.ensure(days);
  }

  /** Days before `day` were dropped. */
  forgetBefore(day: number): void {
    for (const d of this.#known) if (d < day) this.#known.delete(d);
  }

  clear(): void {
    this.#known.clear();
  }
}

/** PostgreSQL's answer to a row no partition takes (check_violation, "no partition of relation"). */
export function isMissingPartition(err: unknown): boolean {
  return (
    err instanceof Error &&
    "code" in err &&
    err.code === "23514" &&
    /no partition of relation/.test(err.message)
  );
}
