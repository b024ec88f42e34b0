import type { Pool } from "pg";
import type { TablePlan } from "./plan.ts";
import type { MigrationProgress, TableProgress } from "./progress.ts";
import { TableProgressLines, type WriteLine } from "./progress-lines.ts";
import type { SqliteSource } from "./source.ts";

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** Thrown when the run is stopped between batches (SIGINT, or a test's injected abort). */
export class MigrationInterrupted extends Error {}

export type CopyOptions = {
  readonly batchSize: number;
  readonly write: WriteLine;
  /** At most one progress line per table this often (default: every second). */
  readonly progressEveryMs?: number;
  /** Checked after each committed batch: the run stops there, and a rerun resumes after it. */
  readonly signal?: AbortSignal;
  /** Told after each committed batch (tests stop a run part-way through with it). */
  readonly onBatch?: (table: string, rows: number) => void;
  /** Runs before each batch's transaction (telemetry_raw: its day partitions). */
  readonly beforeBatch?: (rows: readonly unknown[][]) => Promise<void>;
};

/**
 * One INSERT per batch, each column passed as one array (unnest): no limit on rows per statement,
 * and one round trip. Rows are inserted in the order given, which keeps the order the target's
 * triggers and identity columns see (audit seq, alarm_events.write_seq) the source's.
 */
function insertStatement(plan: TablePlan): string {
  const columns = plan.columns.map((c) => quote(c.name)).join(", ");
  const arrays = plan.columns.map((c, i) => `$${i + 1}::${c.pgType}[]`).join(", ");
  return `INSERT INTO ${quote(plan.name)} (${columns}) SELECT * FROM unnest(${arrays})`;
}

function columnArrays(plan: TablePlan, rows: readonly unknown[][]): unknown[][] {
  return plan.columns.map((column, c) => {
    const convert = column.convert;
    return rows.map((row) => {
      const value = row[c] ?? null;
      return value === null || convert === null ? value : convert(value);
    });
  });
}

/**
 * Copies `plan`'s table from `source` to the target in keyset-paginated batches, resuming after
 * `from` (what an earlier run committed). Each batch lands in one transaction with the table's new
 * cursor. Returns the table's rows on the target.
 */
export async function copyTable(
  plan: TablePlan,
  source: SqliteSource,
  pool: Pool,
  progress: MigrationProgress,
  from: TableProgress,
  options: CopyOptions,
): Promise<number> {
  const lines = new TableProgressLines(
    options.write,
    plan.name,
    source.count(plan.name),
    from.rows,
    options.progressEveryMs,
  );
  const read = source.batches(plan, options.batchSize);
  const insert = insertStatement(plan);
  let state = from;
  while (!state.done) {
    const batch = read(state.cursor);
    const next: TableProgress = {
      cursor: batch.cursor,
      rows: state.rows + batch.rows.length,
      done: batch.rows.length < options.batchSize,
    };
    if (batch.rows.length > 0) await options.beforeBatch?.(batch.rows);
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      if (batch.rows.length > 0) await client.query(insert, columnArrays(plan, batch.rows));
      await progress.record(client, plan.name, next);
      await client.query("COMMIT");
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      throw new Error(
        `${plan.name}: copying rows after ${state.rows} failed: ${error instanceof Error ? error.message : String(error)}`,
        {
          cause: error,
        },
      );
    } finally {
      client.release();
    }
    state = next;
    options.onBatch?.(plan.name, state.rows);
    if (state.done) break;
    lines.batch(state.rows);
    if (options.signal?.aborted) {
      throw new MigrationInterrupted(
        `interrupted after ${state.rows} rows of ${plan.name}; run the same command again to resume`,
      );
    }
  }
  lines.done(state.rows);
  return state.rows;
}
