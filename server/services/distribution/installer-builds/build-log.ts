import { eq, sql } from "drizzle-orm";
import type { DbOrTx } from "../../../store/sqlite/append-audit.ts";
import { installerBuilds } from "../../../store/sqlite/schema/index.ts";

/** A build's log keeps its last 64 KiB: wixl's output is bounded, but a log must never grow without end. */
const LOG_MAX_CHARS = 65_536;

export function logLine(at: Date, message: string): string {
  return `${at.toISOString()} ${message.trimEnd()}\n`;
}

/** Appends one timestamped line to a build's log (SQLite's substr with a negative start keeps the tail). */
export function appendBuildLog(db: DbOrTx, buildId: string, at: Date, message: string): void {
  db.update(installerBuilds)
    .set({
      log: sql`substr(${installerBuilds.log} || ${logLine(at, message)}, -${sql.raw(String(LOG_MAX_CHARS))})`,
    })
    .where(eq(installerBuilds.id, buildId))
    .run();
}
