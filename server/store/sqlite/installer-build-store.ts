import { and, asc, desc, eq, inArray, isNotNull, ne, sql } from "drizzle-orm";
import type { InstallerBuildChange, InstallerBuildStore } from "../ports/installer-build-store.ts";
import type { InstallerBuildRow, NewInstallerBuildRow } from "../rows.ts";
import { installerBuilds } from "./schema/index.ts";
import type { SqliteSession } from "./session.ts";

export class SqliteInstallerBuildStore implements InstallerBuildStore {
  readonly #s: SqliteSession;

  constructor(session: SqliteSession) {
    this.#s = session;
  }

  get(id: string) {
    return this.#s.gate.run(() =>
      this.#s.db.select().from(installerBuilds).where(eq(installerBuilds.id, id)).get(),
    );
  }

  activeOf(projectId: string) {
    return this.#s.gate.run(() =>
      this.#s.db
        .select()
        .from(installerBuilds)
        .where(
          and(
            eq(installerBuilds.projectId, projectId),
            inArray(installerBuilds.status, ["queued", "running"]),
          ),
        )
        .get(),
    );
  }

  latestOf(projectId: string) {
    return this.#s.gate.run(() =>
      this.#s.db
        .select()
        .from(installerBuilds)
        .where(eq(installerBuilds.projectId, projectId))
        .orderBy(desc(installerBuilds.createdAt))
        .limit(1)
        .get(),
    );
  }

  latestBuilt(projectId: string, inputs: { agentVersion: string; inputsSha256: string }) {
    return this.#s.gate.run(() =>
      this.#s.db
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
        .orderBy(desc(installerBuilds.finishedAt))
        .limit(1)
        .get(),
    );
  }

  nextQueued() {
    return this.#s.gate.run(() =>
      this.#s.db
        .select()
        .from(installerBuilds)
        .where(eq(installerBuilds.status, "queued"))
        .orderBy(asc(installerBuilds.createdAt))
        .limit(1)
        .get(),
    );
  }

  idsWithStatus(status: InstallerBuildRow["status"]) {
    return this.#s.gate.run(() =>
      this.#s.db
        .select({ id: installerBuilds.id })
        .from(installerBuilds)
        .where(eq(installerBuilds.status, status))
        .all()
        .map((r) => r.id),
    );
  }

  keptFiles() {
    return this.#s.gate.run(() =>
      this.#s.db
        .select({ file: installerBuilds.file })
        .from(installerBuilds)
        .where(isNotNull(installerBuilds.file))
        .all()
        .flatMap((r) => (r.file === null ? [] : [r.file])),
    );
  }

  insert(row: NewInstallerBuildRow) {
    return this.#s.gate.run(() => this.#s.db.insert(installerBuilds).values(row).returning().get());
  }

  update(id: string, change: InstallerBuildChange) {
    return this.#s.gate.run(
      () =>
        this.#s.db.update(installerBuilds).set(change).where(eq(installerBuilds.id, id)).run().changes > 0,
    );
  }

  appendLog(id: string, text: string, maxChars: number) {
    // substr with a negative start keeps the tail.
    return this.#s.gate.run(() => {
      this.#s.db
        .update(installerBuilds)
        .set({ log: sql`substr(${installerBuilds.log} || ${text}, -${sql.raw(String(maxChars))})` })
        .where(eq(installerBuilds.id, id))
        .run();
    });
  }

  releaseReplaced(projectId: string, newest: string) {
    return this.#s.gate.run(() =>
      this.#s.db
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
        .returning({ id: installerBuilds.id })
        .all()
        .map((r) => r.id),
    );
  }
}
