import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const MIGRATIONS = fileURLToPath(new URL("../migrations", import.meta.url));

type Journal = { entries: { tag: string }[] };

/**
 * Test support: a copy of the SQLite migrations folder, under `dir`, that stops just before the
 * migration whose tag ends with `tag`, so a test can make a database as an older server left it.
 */
export function migrationsBefore(dir: string, tag: string): string {
  const folder = join(dir, "migrations");
  cpSync(MIGRATIONS, folder, { recursive: true });
  const journalFile = join(folder, "meta", "_journal.json");
  const journal = JSON.parse(readFileSync(journalFile, "utf8")) as Journal;
  const at = journal.entries.findIndex((e) => e.tag.endsWith(tag));
  if (at <= 0) throw new Error(`no migration tagged …${tag} after the first`);
  writeFileSync(journalFile, JSON.stringify({ ...journal, entries: journal.entries.slice(0, at) }));
  return folder;
}
