import { existsSync, readFileSync, statSync } from "node:fs";
import Database from "better-sqlite3";
import { drizzle } from "drizzle-orm/better-sqlite3";
import { z } from "zod";
import type { Db, Sqlite } from "../sqlite/client.ts";
import * as sqliteSchema from "../sqlite/schema/index.ts";
import type { TablePlan } from "./plan.ts";

/** What changes when anything writes the database: its size and mtime, and its WAL's size. */
export type SourceFingerprint = { size: number; mtimeMs: number; walSize: number };

/** A batch of rows of one table, as SQLite's driver returns them, in the plan's column order. */
export type SourceBatch = { rows: unknown[][]; cursor: unknown[] | null };

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

const journalSchema = z.object({ entries: z.array(z.unknown()) });

/** How many migrations this version of Caudal has for SQLite (its drizzle journal). */
function journalEntries(): number {
  const journal = new URL("../sqlite/migrations/meta/_journal.json", import.meta.url);
  return journalSchema.parse(JSON.parse(readFileSync(journal, "utf8"))).entries.length;
}

export function fingerprintOf(file: string): SourceFingerprint {
  const db = statSync(file);
  const wal = `${file}-wal`;
  return {
    size: db.size,
    mtimeMs: Math.trunc(db.mtimeMs),
    walSize: existsSync(wal) ? statSync(wal).size : 0,
  };
}

/**
 * The SQLite database being moved, opened read-only. It must be quiescent: a WAL holding frames
 * means a server has it open (or stopped without closing it), and that is refused. Anything that
 * writes it during the run changes its fingerprint, which the migration checks again after copying.
 */
export class SqliteSource {
  readonly file: string;
  readonly sqlite: Sqlite;
  readonly db: Db;
  readonly fingerprint: SourceFingerprint;

  private constructor(file: string, sqlite: Sqlite, fingerprint: SourceFingerprint) {
    this.file = file;
    this.sqlite = sqlite;
    this.db = drizzle(sqlite, { schema: sqliteSchema });
    this.fingerprint = fingerprint;
  }

  static open(file: string): SqliteSource {
    if (!existsSync(file)) throw new Error(`no SQLite database at ${file}`);
    const fingerprint = fingerprintOf(file);
    if (fingerprint.walSize > 0) {
      throw new Error(
        `${file}-wal holds writes not yet in the database: a server has it open. Stop the server ` +
          "(it checkpoints and closes the database on SIGTERM) and run the migration again; after a " +
          "crash, start and stop the server once first",
      );
    }
    const sqlite = new Database(file, { readonly: true, fileMustExist: true });
    try {
      const applied =
        sqlite.prepare<[], number>("SELECT count(*) FROM __drizzle_migrations").pluck().get() ?? 0;
      const known = journalEntries();
      if (applied !== known) {
        throw new Error(
          applied < known
            ? `${file} is at schema migration ${applied} of ${known}: start this version of the server on it once (it applies them), stop it, then migrate`
            : `${file} has ${applied} schema migrations, this version of Caudal knows ${known}: migrate with the version that wrote it`,
        );
      }
      return new SqliteSource(file, sqlite, fingerprint);
    } catch (error) {
      sqlite.close();
      if (error instanceof Error && /no such table: __drizzle_migrations/.test(error.message)) {
        throw new Error(`${file} is not a Caudal database (it has no schema migrations)`);
      }
      throw error;
    }
  }

  /** Whether anything wrote the database since it was opened. */
  changed(): boolean {
    const now = fingerprintOf(this.file);
    return (
      now.size !== this.fingerprint.size ||
      now.mtimeMs !== this.fingerprint.mtimeMs ||
      now.walSize !== this.fingerprint.walSize
    );
  }

  count(table: string): number {
    return (
      this.sqlite
        .prepare<[], number>(`SELECT count(*) FROM ${quote(table)}`)
        .pluck()
        .get() ?? 0
    );
  }

  /** The highest id AUTOINCREMENT has issued for `table` (0 when none): ids never reused. */
  autoincrementSeq(table: string): number {
    return (
      this.sqlite
        .prepare<[string], number>("SELECT seq FROM sqlite_sequence WHERE name = ?")
        .pluck()
        .get(table) ?? 0
    );
  }

  /**
   * A reader of `plan`'s rows in key order, `size` at a time, each batch after `cursor` (null:
   * from the first row). Rowid tables are read by rowid, which is their write order (alarm_events'
   * tie-break, which PostgreSQL records as write_seq on insert); WITHOUT ROWID tables by their
   * primary key.
   */
  batches(plan: TablePlan, size: number): (cursor: unknown[] | null) => SourceBatch {
    const wr = this.sqlite
      .prepare<[string], number>("SELECT wr FROM pragma_table_list WHERE schema = 'main' AND name = ?")
      .pluck()
      .get(plan.name);
    const columns = plan.columns.map((c) => quote(c.name)).join(", ");
    const table = quote(plan.name);
    if (wr !== 1) {
      const first = this.sqlite
        .prepare<unknown[], unknown[]>(`SELECT rowid, ${columns} FROM ${table} ORDER BY rowid LIMIT ?`)
        .raw();
      const next = this.sqlite
        .prepare<unknown[], unknown[]>(
          `SELECT rowid, ${columns} FROM ${table} WHERE rowid > ? ORDER BY rowid LIMIT ?`,
        )
        .raw();
      return (cursor) => {
        const rows = cursor ? next.all(cursor[0], size) : first.all(size);
        const last = rows.at(-1);
        return { rows: rows.map((r) => r.slice(1)), cursor: last ? [last[0]] : cursor };
      };
    }
    if (plan.primaryKey.length === 0) throw new Error(`${plan.name}: WITHOUT ROWID but no primary key`);
    const keyAt = plan.primaryKey.map((k) => plan.columns.findIndex((c) => c.name === k));
    const key = plan.primaryKey.map(quote).join(", ");
    const marks = plan.primaryKey.map(() => "?").join(", ");
    const first = this.sqlite
      .prepare<unknown[], unknown[]>(`SELECT ${columns} FROM ${table} ORDER BY ${key} LIMIT ?`)
      .raw();
    const next = this.sqlite
      .prepare<unknown[], unknown[]>(
        `SELECT ${columns} FROM ${table} WHERE (${key}) > (${marks}) ORDER BY ${key} LIMIT ?`,
      )
      .raw();
    return (cursor) => {
      const rows = cursor ? next.all(...cursor, size) : first.all(size);
      const last = rows.at(-1);
      return { rows, cursor: last ? keyAt.map((i) => last[i]) : cursor };
    };
  }

  close(): void {
    this.sqlite.close();
  }
}
