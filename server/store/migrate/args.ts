/** What `caudal-server migrate` was asked to do. */
export type MigrateArgs =
  | { help: true }
  | { help: false; from: string; to: string; restart: boolean; batchSize: number; sampleSeries: number };

export class UsageError extends Error {}

export const DEFAULT_BATCH_SIZE = 5000;
export const DEFAULT_SAMPLE_SERIES = 20;

export const MIGRATE_HELP = `Usage: npm run server -- migrate --from sqlite:<file> --to postgres://<user>@<host>/<db> [options]

Copies a Caudal site from its SQLite database to PostgreSQL 15, then verifies the copy: row
counts per table, the audit chain on the target, every stored ANH report's bytes and SHA-384,
and a sample of telemetry read on both sides.

The SQLite database must be quiescent: stop the server first. The file is opened read-only; a
WAL that still holds writes (a running server) is refused, and so is a file written during the run.
The target gets the server's PostgreSQL migrations first; create it as docs/scale-out.md says
(UTF-8, C locale).

A run stopped part-way (Ctrl-C, a lost connection, a crash) is resumed by running the same
command again: each batch commits with its progress (table caudal_migration_progress on the target).

Options:
  --from sqlite:<file>   the SQLite database, e.g. sqlite:./data/caudal.db
  --to <url>             the PostgreSQL database, postgres:// or postgresql://
  --restart              empty the target first: drops every table, function and trigger the
                         server's migrations made (and an earlier run's progress), then applies
                         the migrations again. Needed for a target that already holds data.
  --batch-size <n>       rows per batch and transaction (default ${DEFAULT_BATCH_SIZE})
  --sample-series <n>    telemetry series compared after copying (default ${DEFAULT_SAMPLE_SERIES})
  -h, --help             this text

Exit status: 0 copied and verified; 1 refused, failed or verification found differences;
2 bad arguments; 130 interrupted (run again to resume).`;

function positiveInt(flag: string, value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1) {
    throw new UsageError(`${flag}: expected a whole number of at least 1, got "${value}"`);
  }
  return n;
}

/** Parses the arguments after `migrate`; throws UsageError with a message for people. */
export function parseMigrateArgs(argv: readonly string[]): MigrateArgs {
  const values = new Map<string, string>();
  let restart = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (arg === "-h" || arg === "--help") return { help: true };
    if (arg === "--restart") {
      restart = true;
      continue;
    }
    const [flag, inline] =
      arg.startsWith("--") && arg.includes("=")
        ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)]
        : [arg, undefined];
    if (!["--from", "--to", "--batch-size", "--sample-series"].includes(flag)) {
      throw new UsageError(`unknown argument "${arg}" (see --help)`);
    }
    if (values.has(flag)) throw new UsageError(`${flag} given twice`);
    const value = inline ?? argv[++i];
    if (value === undefined || value === "") throw new UsageError(`${flag} needs a value`);
    values.set(flag, value);
  }
  const from = values.get("--from");
  const to = values.get("--to");
  if (from === undefined) throw new UsageError("--from sqlite:<file> is required (see --help)");
  if (to === undefined) throw new UsageError("--to postgres://… is required (see --help)");
  if (!from.startsWith("sqlite:") || from.length === "sqlite:".length) {
    throw new UsageError(`--from: expected sqlite:<file>, e.g. sqlite:./data/caudal.db, got "${from}"`);
  }
  if (!/^postgres(ql)?:\/\//.test(to)) {
    throw new UsageError(`--to: expected a postgres:// or postgresql:// URL, got "${redactUrl(to)}"`);
  }
  return {
    help: false,
    from: from.slice("sqlite:".length),
    to,
    restart,
    batchSize: values.has("--batch-size")
      ? positiveInt("--batch-size", values.get("--batch-size") ?? "")
      : DEFAULT_BATCH_SIZE,
    sampleSeries: values.has("--sample-series")
      ? positiveInt("--sample-series", values.get("--sample-series") ?? "")
      : DEFAULT_SAMPLE_SERIES,
  };
}

/** `url` with any password replaced, for messages and logs. */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*):[^@/]*@/i, "$1:***@");
}
