import { readdirSync, rmSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { and, asc, eq, isNotNull, ne } from "drizzle-orm";
import { installerBuilds, projects } from "../../../store/sqlite/schema/index.ts";
import { issueEnrollmentCode } from "../../agents/enrollment-codes.ts";
import type { ServiceContext } from "../../context.ts";
import type { AgentArtifacts } from "../agent-artifacts.ts";
import { buildMsi, MsiBuildError } from "../msi/build-msi.ts";
import type { InstallerBuildRow } from "./build-dto.ts";
import { appendBuildLog } from "./build-log.ts";
import { installersDir, msiFileName, workDirName } from "./installer-files.ts";
import { installerInputs } from "./installer-inputs.ts";

/**
 * Works the installer build queue off the request path: one build at a time, oldest first, each
 * a wixl child process (msi/build-msi.ts). The constructor only assigns; start() recovers from a
 * previous run and listens for new builds; stop() kills a running wixl and waits for it.
 */
export class InstallerBuildWorker {
  readonly #ctx: ServiceContext;
  readonly #artifacts: AgentArtifacts;
  #started = false;
  #current: { abort: AbortController; done: Promise<void> } | undefined;
  // After the request that queued the build has been answered.
  readonly #onQueued = () => setImmediate(() => this.#next());

  constructor(ctx: ServiceContext, artifacts: AgentArtifacts) {
    this.#ctx = ctx;
    this.#artifacts = artifacts;
  }

  start(): void {
    this.#failInterrupted();
    this.#removeUnreferencedFiles();
    this.#ctx.events.on("installerBuildQueued", this.#onQueued);
    this.#started = true;
    this.#next();
  }

  async stop(): Promise<void> {
    this.#started = false;
    this.#ctx.events.off("installerBuildQueued", this.#onQueued);
    this.#current?.abort.abort();
    await this.#current?.done;
  }

  /** A build left running by a server that stopped without finishing it cannot be resumed. */
  #failInterrupted(): void {
    const { db, clock } = this.#ctx;
    const now = clock.now();
    const running = db.select({ id: installerBuilds.id }).from(installerBuilds);
    for (const { id } of running.where(eq(installerBuilds.status, "running")).all()) {
      db.transaction((tx) => {
        appendBuildLog(
          tx,
          id,
          now,
          "failed: the server stopped while this build was running; queue it again with POST …/build",
        );
        tx.update(installerBuilds)
          .set({ status: "failed", finishedAt: now })
          .where(eq(installerBuilds.id, id))
          .run();
      });
    }
  }

  /** MSIs and scratch folders no build names (a deleted project's, a replaced one's, a crash's). */
  #removeUnreferencedFiles(): void {
    const dir = installersDir(this.#ctx);
    const kept = new Set(
      this.#ctx.db
        .select({ file: installerBuilds.file })
        .from(installerBuilds)
        .where(isNotNull(installerBuilds.file))
        .all()
        .map((r) => r.file),
    );
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return; // nothing built yet
    }
    for (const name of names) {
      if (!kept.has(name)) rmSync(join(dir, name), { recursive: true, force: true });
    }
  }

  #next(): void {
    if (!this.#started || this.#current) return;
    const row = this.#ctx.db
      .select()
      .from(installerBuilds)
      .where(eq(installerBuilds.status, "queued"))
      .orderBy(asc(installerBuilds.createdAt))
      .limit(1)
      .get();
    if (!row) return;
    const abort = new AbortController();
    const done = this.#run(row, abort.signal)
      .catch((err: unknown) =>
        this.#ctx.logger.error("installer build crashed", {
          build_id: row.id,
          error: err instanceof Error ? err.message : String(err),
        }),
      )
      .finally(() => {
        this.#current = undefined;
        this.#next();
      });
    this.#current = { abort, done };
  }

  #log(buildId: string, message: string): void {
    appendBuildLog(this.#ctx.db, buildId, this.#ctx.clock.now(), message);
  }

  #set(buildId: string, values: Partial<InstallerBuildRow>): number {
    return this.#ctx.db.update(installerBuilds).set(values).where(eq(installerBuilds.id, buildId)).run()
      .changes;
  }

  async #run(queued: InstallerBuildRow, signal: AbortSignal): Promise<void> {
    const ctx = this.#ctx;
    const id = queued.id;
    const started = Date.now();
    this.#set(id, { status: "running", startedAt: ctx.clock.now() });
    this.#log(id, `build started${queued.rebuild ? " (rebuild: the cache was not consulted)" : ""}`);
    const dir = installersDir(ctx);
    const outFile = join(dir, msiFileName(id));
    try {
      const project = ctx.db
        .select({ id: projects.id, name: projects.name })
        .from(projects)
        .where(eq(projects.id, queued.projectId))
        .get();
      if (!project) throw new MsiBuildError("the project was deleted");
      const inputs = installerInputs(this.#artifacts, project, queued.serverUrl);
      if ("missing" in inputs) throw new MsiBuildError(inputs.missing);
      this.#set(id, { agentVersion: inputs.agentVersion, inputsSha256: inputs.inputsSha256 });
      const code = issueEnrollmentCode(ctx, null, project.id, { purpose: "msi" });
      this.#set(id, { enrollmentCodeId: code.id });
      this.#log(id, `enrollment code ${code.id} issued for this MSI, valid until ${code.expires_at}`);
      const built = await buildMsi({
        projectId: project.id,
        projectName: project.name,
        serverUrl: queued.serverUrl,
        enrollmentCode: code.code,
        agentVersion: inputs.agentVersion,
        agentExe: inputs.agentExe,
        winsw: inputs.winsw,
        workDir: join(dir, workDirName(id)),
        outFile,
        timeoutMs: ctx.config.INSTALLER_BUILD_TIMEOUT_SECONDS * 1000,
        signal,
        log: (line) => this.#log(id, line),
      });
      const finishedAt = ctx.clock.now();
      this.#log(id, `succeeded in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      const changed = this.#set(id, {
        status: "succeeded",
        finishedAt,
        file: msiFileName(id),
        bytes: built.bytes,
        sha256: built.sha256,
      });
      if (changed === 0)
        await rm(outFile, { force: true }); // its project was deleted meanwhile
      else await this.#removeReplaced(queued.projectId, id);
      ctx.logger.info("installer built", { build_id: id, project_id: queued.projectId, bytes: built.bytes });
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      this.#log(id, `failed: ${reason}`);
      this.#set(id, { status: "failed", finishedAt: ctx.clock.now() });
      await rm(outFile, { force: true });
      ctx.logger.warn("installer build failed", { build_id: id, project_id: queued.projectId, reason });
    }
  }

  /** Only the project's newest MSI is kept: each is ~40 MB, and an older one is never served again. */
  async #removeReplaced(projectId: string, newest: string): Promise<void> {
    const replaced = this.#ctx.db
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
      .all();
    for (const { id } of replaced) await rm(join(installersDir(this.#ctx), msiFileName(id)), { force: true });
  }
}
