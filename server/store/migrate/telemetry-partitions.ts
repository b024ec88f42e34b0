import type { Pool } from "pg";

const DAY_MS = 86_400_000;
/** caudal_ensure_telemetry_partitions makes at most 1000 days per call (migration 0002). */
const DAYS_PER_CALL = 1000;

/**
 * telemetry_raw on PostgreSQL is partitioned by UTC day, with no default partition (migration
 * 0002): before a batch of raw rows lands, every day it touches must have its partition. Only the
 * days that hold readings are made, run by run of consecutive days, so a stray old reading makes
 * one partition, not every day since.
 */
export class TelemetryPartitions {
  readonly #tsColumn: number;
  readonly #ensured = new Set<number>();

  /** `tsColumn`: where the reading's instant (epoch ms) sits in a batch row. */
  constructor(tsColumn: number) {
    this.#tsColumn = tsColumn;
  }

  /**
   * Makes the partitions of the days of `rows` not made yet, before the batch's transaction: a
   * partition outlives a batch that fails, and the next run finds it made.
   */
  async ensureFor(pool: Pool, rows: readonly unknown[][]): Promise<void> {
    const days = new Set<number>();
    for (const row of rows) {
      const day = Math.floor(Number(row[this.#tsColumn]) / DAY_MS);
      if (!this.#ensured.has(day)) days.add(day);
    }
    const sorted = [...days].sort((a, b) => a - b);
    let start = 0;
    for (let i = 1; i <= sorted.length; i++) {
      const first = sorted[start] ?? 0;
      const current = sorted[i];
      if (current !== undefined && current === (sorted[i - 1] ?? 0) + 1 && current - first < DAYS_PER_CALL)
        continue;
      const last = sorted[i - 1] ?? first;
      await pool.query("SELECT caudal_ensure_telemetry_partitions($1, $2)", [first * DAY_MS, last * DAY_MS]);
      start = i;
    }
    for (const day of sorted) this.#ensured.add(day);
  }
}
