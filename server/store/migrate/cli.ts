import { MIGRATE_HELP, parseMigrateArgs, redactUrl, UsageError } from "./args.ts";
import { MigrationError, MigrationInterrupted, migrateSqliteToPostgres } from "./migrate.ts";

// `npm run server -- migrate …` (server/main.ts): copies a stopped site from SQLite to PostgreSQL.
// Everything it says goes to stderr; the exit status tells the outcome (see --help).
const write = (line: string) => process.stderr.write(`${line}\n`);

let args: ReturnType<typeof parseMigrateArgs>;
try {
  args = parseMigrateArgs(process.argv.slice(3));
} catch (error) {
  if (!(error instanceof UsageError)) throw error;
  write(`caudal-server migrate: ${error.message}`);
  process.exit(2);
}
if (args.help) {
  process.stdout.write(`${MIGRATE_HELP}\n`);
  process.exit(0);
}

// Ctrl-C stops after the batch in flight commits; running the command again resumes there.
const stop = new AbortController();
process.once("SIGINT", () => {
  write("stopping after the current batch…");
  stop.abort();
});

write(`migrating sqlite:${args.from} to ${redactUrl(args.to)}`);
try {
  const result = await migrateSqliteToPostgres({ ...args, write, signal: stop.signal });
  const rows = result.tables.reduce((sum, t) => sum + t.rows, 0);
  if (!result.verification.ok) {
    for (const problem of result.verification.problems) write(`verification failed: ${problem}`);
    process.exit(1);
  }
  write(`done: ${result.tables.length} tables, ${rows.toLocaleString("en-US")} rows copied and verified`);
  process.exit(0);
} catch (error) {
  if (error instanceof MigrationInterrupted) {
    write(error.message);
    process.exit(130);
  }
  const message = error instanceof Error ? error.message : String(error);
  write(`caudal-server migrate: ${error instanceof MigrationError ? message : `failed: ${message}`}`);
  process.exit(1);
}
