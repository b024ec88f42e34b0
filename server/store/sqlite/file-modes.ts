import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { DATA_DIR_MODE } from "../../data-dir.ts";

/** The database holds password hashes, encrypted secrets and all field data: owner only. */
export const DATABASE_FILE_MODE = 0o600;

/** SQLite's companions of a database file (rollback journal, WAL and its shared-memory index). */
const COMPANIONS = ["-journal", "-wal", "-shm"];

/**
 * Creates the database's folder (0700) and an empty database file (0600) before SQLite opens it,
 * and tightens files an older version left wider. SQLite creates the -wal, -shm and -journal files
 * with the mode of the database file (unix VFS, findCreateFileMode), so they follow at 0600.
 */
export function prepareDatabaseFile(file: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: DATA_DIR_MODE });
  // An empty file is an empty database to SQLite; "a" creates one but never truncates what exists.
  closeSync(openSync(file, "a", DATABASE_FILE_MODE));
  for (const path of [file, ...COMPANIONS.map((suffix) => `${file}${suffix}`)]) {
    if (existsSync(path) && (statSync(path).mode & 0o077) !== 0) chmodSync(path, DATABASE_FILE_MODE);
  }
}
