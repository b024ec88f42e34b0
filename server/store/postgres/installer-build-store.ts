import { and, asc, desc, eq, inArray, isNotNull, ne, sql } from "drizzle-orm";
import type { InstallerBuildChange, InstallerBuildStore } from "../ports/installer-build-store.ts";
import type { InstallerBuildRow, NewInstallerBuildRow } from "../rows.ts";
import { installerBuilds } from "./schema/index.ts";
import type { PgSession } from "./session.ts";

export class PostgresInstallerBuildStore implements InstallerBuildStore {
  readonly #s: PgSession;

  constructor(session: PgSession) {
    this.#s = session;
  }

  async get(id: string) {
    const [row] = await this.#s
      .executor()
      .select()
      .from(installerBuilds)
      .where(eq(installerBuilds.id, id))
      .limit(1);
    return row;
  }

  async activeOf(projectId: string) {
    // installer_builds_one_active_uq keeps it to one row.
    const [row] = await this.#s
      .executor()
      .select()
      .from(installerBuilds)
      .where(
        and(eq(installerBuilds.projectId, projectId), inArray(installerBuilds.status, ["queued", "running"])),
      )
      .limit(1);
    return row;
  }

  async latestOf(projectId: string) {
    const [row] = await this.#s
      .executor()
      .select()
      .from(installerBuilds)
      .where(eq(installerBuilds.projectId, projectId))
      .orderBy(desc(installerBuilds.createdAt))
      .limit(1);
    return row;
  }

  async latestBuilt(projectId: string, inputs: { agentVersion: string; inputsSha256: string }) {
    const [row] = await this.#s
      .executor()
      .select()
      .from(installerBuilds)
      .where(
        and(
          eq(installerBuilds.projectId, projectId),
          eq(installerBuilds.status, "succeeded"),
          eq(installerBuilds.agentVersion, inputs.agentVersion),
          eq(installerBuilds.inputsSha256, inputs.inputsSha256),
          isNotNull(installerBuilds.file),
        ),
      )
      // SQLite puts NULLs first ascending, so last descending: PostgreSQL's default is the reverse.
      .orderBy(sql`${installerBuilds.finishedAt} DESC NULLS LAST`)
      .limit(1);
    return row;
  }

  async nextQueued() {
    const [row] = await this.#s
      .executor()
      .select()
      .from(installerBuilds)
      .where(eq(installerBuilds.status, "queued"))
      .orderBy(asc(installerBuilds.createdAt))
      .limit(1);
    return row;
  }

  async idsWithStatus(status: InstallerBuildRow["status"]) {
    const rows = await this.#s
      .executor()
      .select({ id: installerBuilds.id })
      .from(installerBuilds)
      .where(eq(installerBuilds.status, status));
    return rows.map((r) => r.id);
  }

  async keptFiles() {
    const rows = await this.#s
      .executor()
      .select({ file: installerBuilds.file })
      .from(installerBuilds)
      .where(isNotNull(installerBuilds.file));
    return rows.flatMap((r) => (r.file === null ? [] : [r.file]));
  }

  async insert(row: NewInstallerBuildRow) {
    const [stored] = await this.#s.executor().insert(installerBuilds).values(row).returning();
    if (!stored) throw new Error("INSERT … RETURNING returned no installer build row");
    return stored;
  }

  async update(id: string, change: InstallerBuildChange) {
    const updated = await this.#s
      .executor()
      .update(installerBuilds)
      .set(change)
      .where(eq(installerBuilds.id, id))
      .returning({ id: installerBuilds.id });
    return updated.length > 0;
  }

  async appendLog(id: string, text: string, maxChars: number) {
    // right() keeps the last n characters (code points in a UTF-8 database), as SQLite's substr(x, -n).
    await this.#s
      .executor()
      .update(installerBuilds)
      .set({ log: sql`right(${installerBuilds.log} || ${text}::text, ${maxChars}::int)` })
      .where(eq(installerBuilds.id, id));
  }

  async releaseReplaced(projectId: string, newest: string) {
    const rows = await this.#s
      .executor()
      .update(installerBuilds)
      .set({ file: null })
      .where(
        and(
          eq(installerBuilds.projectId, projectId),
          ne(installerBuilds.id, newest),
          eq(installerBuilds.status, "succeeded"),
          isNotNull(installerBuilds.file),
        ),
      )
      .returning({ id: installerBuilds.id });
    return rows.map((r) => r.id);
  }
}
