import type { Pool } from "pg";
import type { SourceFingerprint } from "./source.ts";

/** Names of the migration's own tables on the target (not part of the server's schema). */
export const RUN_TABLE = "caudal_migration";
export const PROGRESS_TABLE = "caudal_migration_progress";

/** The migration a target holds: where from, and how far it got. */
export type RunRecord = {
  source: string;
  fingerprint: SourceFingerprint;
  startedAt: Date;
  /** Every table copied (identity sequences set past the copied ids too). */
  copiedAt: Date | null;
  verifiedAt: Date | null;
};

/** How far one table's copy got: the key of its last committed row (null: none yet). */
export type TableProgress = { cursor: unknown[] | null; rows: number; done: boolean };

/** A stored cursor: the JSON array of the last committed row's key. */
function cursorOf(text: string | null): unknown[] | null {
  if (text === null) return null;
  const parsed: unknown = JSON.parse(text);
  if (!Array.isArray(parsed)) throw new Error(`${PROGRESS_TABLE}: a cursor is not a JSON array: ${text}`);
  return parsed;
}

/**
 * The migration's progress, kept on the target: one row for the run, one per table. A batch's
 * rows and its table's new cursor commit in one statement, so a run stopped at any point (a
 * kill, a lost connection) resumes after the last batch that landed, never copying a row twice.
 */
export class MigrationProgress {
  readonly #pool: Pool;

  constructor(pool: Pool) {
    this.#pool = pool;
  }

  async run(): Promise<RunRecord | undefined> {
    const exists = await this.#pool.query<{ t: string | null }>("SELECT to_regclass($1)::text AS t", [
      RUN_TABLE,
    ]);
    if (exists.rows[0]?.t == null) return undefined;
    const { rows } = await this.#pool.query<{
      source: string;
      size: string;
      mtime_ms: string;
      started_at: Date;
      copied_at: Date | null;
      verified_at: Date | null;
    }>(`SELECT source, size, mtime_ms, started_at, copied_at, verified_at FROM ${RUN_TABLE}`);
    const row = rows[0];
    if (!row) return undefined;
    return {
      source: row.source,
      fingerprint: { size: Number(row.size), mtimeMs: Number(row.mtime_ms), walSize: 0 },
      startedAt: row.started_at,
      copiedAt: row.copied_at,
      verifiedAt: row.verified_at,
    };
  }

  /** Records a new run from `source` on a target that holds nothing yet. */
  async begin(source: string, fingerprint: SourceFingerprint): Promise<void> {
    await this.#pool.query(
      `CREATE TABLE ${RUN_TABLE} (
         one boolean PRIMARY KEY DEFAULT true CHECK (one),
         source text NOT NULL,
         size bigint NOT NULL,
         mtime_ms bigint NOT NULL,
         started_at timestamptz NOT NULL DEFAULT now(),
         copied_at timestamptz,
         verified_at timestamptz
       );
       CREATE TABLE ${PROGRESS_TABLE} (
         table_name text PRIMARY KEY,
         cursor text,
         rows bigint NOT NULL DEFAULT 0,
         done boolean NOT NULL DEFAULT false
       )`,
    );
    await this.#pool.query(`INSERT INTO ${RUN_TABLE} (source, size, mtime_ms) VALUES ($1, $2, $3)`, [
      source,
      fingerprint.size,
      fingerprint.mtimeMs,
    ]);
  }

  async tables(): Promise<Map<string, TableProgress>> {
    const { rows } = await this.#pool.query<{
      table_name: string;
      cursor: string | null;
      rows: string;
      done: boolean;
    }>(`SELECT table_name, cursor, rows, done FROM ${PROGRESS_TABLE}`);
    return new Map(
      rows.map((r) => [
        r.table_name,
        {
          cursor: cursorOf(r.cursor),
          rows: Number(r.rows),
          done: r.done,
        },
      ]),
    );
  }

  /**
   * The statement that records a table's progress, its parameters numbered from `first` (table,
   * cursor, rows, done): the tail of a batch's statement, so both commit together.
   */
  recordStatement(first: number): string {
    const [table, cursor, rows, done] = [first, first + 1, first + 2, first + 3].map((n) => `$${n}`);
    return `INSERT INTO ${PROGRESS_TABLE} (table_name, cursor, rows, done)
      VALUES (${table}::text, ${cursor}::text, ${rows}::bigint, ${done}::boolean)
      ON CONFLICT (table_name) DO UPDATE SET cursor = excluded.cursor, rows = excluded.rows, done = excluded.done`;
  }

  recordParams(table: string, progress: TableProgress): unknown[] {
    return [
      table,
      progress.cursor === null ? null : JSON.stringify(progress.cursor),
      progress.rows,
      progress.done,
    ];
  }

  async markCopied(): Promise<void> {
    await this.#pool.query(`UPDATE ${RUN_TABLE} SET copied_at = now()`);
  }

  async markVerified(): Promise<void> {
    await this.#pool.query(`UPDATE ${RUN_TABLE} SET verified_at = now()`);
  }
}
