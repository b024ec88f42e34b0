import { resolve } from "node:path";
import { SqliteStore } from "../sqlite/sqlite-store.ts";
import { copyTable, MigrationInterrupted } from "./copy-table.ts";
import { migrationPlan, type TablePlan } from "./plan.ts";
import type { WriteLine } from "./progress-lines.ts";
import { SqliteSource } from "./source.ts";
import { PostgresTarget } from "./target.ts";
import { TelemetryPartitions } from "./telemetry-partitions.ts";
import { type Verification, verifyMigration } from "./verify.ts";

export type MigrateOptions = {
  /** The SQLite database file (the server stopped). */
  readonly from: string;
  /** postgres://… of the target database. */
  readonly to: string;
  /** Empty the target first (drop what the server's migrations made) instead of refusing data. */
  readonly restart: boolean;
  readonly batchSize: number;
  /** Series whose telemetry is read and compared on both sides after copying. */
  readonly sampleSeries: number;
  readonly write: WriteLine;
  /** At most one progress line per table this often (default: every second). */
  readonly progressEveryMs?: number;
  readonly signal?: AbortSignal;
  readonly onBatch?: (table: string, rows: number) => void;
};

export type MigrationResult = {
  /** Whether this run continued one that an earlier run left unfinished. */
  resumed: boolean;
  tables: { table: string; rows: number }[];
  verification: Verification;
};

/** A refusal or a failed check, said for people: the CLI prints the message alone. */
export class MigrationError extends Error {}

export { MigrationInterrupted };

/** Starts a new run, resumes an unfinished one from the same source, or refuses. */
async function beginOrResume(target: PostgresTarget, source: SqliteSource, file: string): Promise<boolean> {
  const run = await target.progress.run();
  if (!run) {
    const busy = await target.tablesWithData();
    if (busy.length > 0) {
      throw new MigrationError(
        `the target already holds data (${busy.slice(0, 5).join(", ")}${busy.length > 5 ? ", …" : ""}): ` +
          "migrate into an empty database, or pass --restart to empty this one first",
      );
    }
    await target.progress.begin(file, source.fingerprint);
    return false;
  }
  const when = run.startedAt.toISOString();
  if (run.verifiedAt) {
    throw new MigrationError(
      `the target already holds a verified migration of ${run.source} (started ${when}): ` +
        "pass --restart to empty it and migrate again",
    );
  }
  if (run.source !== file) {
    throw new MigrationError(
      `the target holds an unfinished migration of ${run.source} (started ${when}), not of ${file}: ` +
        "pass --restart to empty it first",
    );
  }
  const same =
    run.fingerprint.size === source.fingerprint.size &&
    run.fingerprint.mtimeMs === source.fingerprint.mtimeMs;
  if (!same) {
    throw new MigrationError(
      `${file} changed since the unfinished migration started (${when}), so what was copied may be stale: ` +
        "pass --restart to start over",
    );
  }
  return true;
}

async function copyAll(
  plans: readonly TablePlan[],
  source: SqliteSource,
  target: PostgresTarget,
  options: MigrateOptions,
) {
  const done = await target.progress.tables();
  const tables: { table: string; rows: number }[] = [];
  for (const plan of plans) {
    if (options.signal?.aborted)
      throw new MigrationInterrupted(`interrupted before ${plan.name}; run the same command again to resume`);
    const from = done.get(plan.name) ?? { cursor: null, rows: 0, done: false };
    const ts = plan.name === "telemetry_raw" ? plan.columns.findIndex((c) => c.name === "ts") : -1;
    const partitions = ts >= 0 ? new TelemetryPartitions(ts) : undefined;
    const rows = await copyTable(plan, source, target.pool, target.progress, from, {
      batchSize: options.batchSize,
      write: options.write,
      progressEveryMs: options.progressEveryMs,
      signal: options.signal,
      onBatch: options.onBatch,
      beforeBatch: partitions && ((batch) => partitions.ensureFor(target.pool, batch)),
    });
    tables.push({ table: plan.name, rows });
  }
  return tables;
}

/**
 * Moves a site from SQLite to PostgreSQL (issue 14 §3): applies the server's PostgreSQL
 * migrations, copies every table in dependency order (telemetry streamed in batches), sets the
 * identity sequences past the copied ids, then verifies the copy. A run stopped part-way resumes
 * on the next; a target that already holds data is refused unless `restart` empties it first.
 */
export async function migrateSqliteToPostgres(options: MigrateOptions): Promise<MigrationResult> {
  const file = resolve(options.from);
  const plans = migrationPlan();
  const source = SqliteSource.open(file);
  let target: PostgresTarget | undefined;
  try {
    target = await PostgresTarget.open(options.to);
    options.write("target: PostgreSQL migrations applied");
    if (options.restart) {
      await target.empty();
      options.write("target: emptied (--restart) and migrated again");
    }
    const resumed = await beginOrResume(target, source, file);
    if (resumed) options.write(`resuming the unfinished migration of ${file}`);
    const tables = await copyAll(plans, source, target, options);
    if (source.changed()) {
      throw new MigrationError(
        `${file} was written during the migration: stop the server and pass --restart`,
      );
    }
    await target.advanceIdentities(plans, source);
    await target.progress.markCopied();
    const sourceStore = new SqliteStore({ db: source.db, sqlite: source.sqlite });
    const verification = await verifyMigration(
      plans,
      source,
      sourceStore,
      target,
      options.sampleSeries,
      options.write,
    );
    if (verification.ok) await target.progress.markVerified();
    return { resumed, tables, verification };
  } finally {
    await target?.close();
    source.close();
  }
}
