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
 * One statement per batch, so one round trip and its own transaction: the rows go in as one array
 * per column (unnest: no limit on rows per statement), and a data-modifying WITH lands them with
 * the table's new progress, all or nothing. Rows are inserted in the order given, so the target's
 * triggers and identity columns see the source's order (audit seq, alarm_events.write_seq).
 */
function batchStatement(plan: TablePlan, progress: MigrationProgress): string {
  const columns = plan.columns.map((c) => quote(c.name)).join(", ");
  const arrays = plan.columns.map((c, i) => `$${i + 1}::${c.pgType}[]`).join(", ");
  const insert = `INSERT INTO ${quote(plan.name)} (${columns}) SELECT * FROM unnest(${arrays})`;
  return `WITH copied AS (${insert}) ${progress.recordStatement(plan.columns.length + 1)}`;
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

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Copies `plan`'s table from `source` to the target in keyset-paginated batches, resuming after
 * `from` (what an earlier run committed). Each batch lands in one transaction with the table's new
 * cursor. The next batch is read from SQLite while PostgreSQL stores the previous one. Returns the
 * table's rows on the target.
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
  const statement = batchStatement(plan, progress);
  let state = from;
  // One connection for the whole table: a query on it is sent at once, before the next read.
  const client = await pool.connect();
  try {
    let batch = state.done ? undefined : read(state.cursor);
    while (batch) {
      const next: TableProgress = {
        cursor: batch.cursor,
        rows: state.rows + batch.rows.length,
        done: batch.rows.length < options.batchSize,
      };
      if (batch.rows.length > 0) await options.beforeBatch?.(batch.rows);
      const landed = client
        .query(statement, [...columnArrays(plan, batch.rows), ...progress.recordParams(plan.name, next)])
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      const following = next.done ? undefined : read(next.cursor);
      const failed = await landed;
      if (failed !== undefined) {
        throw new Error(`${plan.name}: copying rows after ${state.rows} failed: ${messageOf(failed)}`, {
          cause: failed,
        });
      }
      state = next;
      batch = following;
      options.onBatch?.(plan.name, state.rows);
      if (state.done) break;
      lines.batch(state.rows);
      if (options.signal?.aborted) {
        throw new MigrationInterrupted(
          `interrupted after ${state.rows} rows of ${plan.name}; run the same command again to resume`,
        );
      }
    }
  } finally {
    client.release();
  }
  lines.done(state.rows);
  return state.rows;
}
