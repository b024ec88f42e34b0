import { readdirSync, rmSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import type { InstallerBuildChange } from "../../../store/ports/installer-build-store.ts";
import type { EnrollmentCodeRow } from "../../../store/rows.ts";
import { issueEnrollmentCode, revokeCodesAsSystem } from "../../agents/enrollment-codes.ts";
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
  /** Asked for the next build while one was being looked up or run: look again after it. */
  #again = false;
  /** The log lines of the running build, written in order. */
  #logged: Promise<void> = Promise.resolve();
  // After the request that queued the build has been answered.
  readonly #onQueued = () => setImmediate(() => this.#next());

  constructor(ctx: ServiceContext, artifacts: AgentArtifacts) {
    this.#ctx = ctx;
    this.#artifacts = artifacts;
  }

  async start(): Promise<void> {
    await this.#failInterrupted();
    await this.#removeUnreferencedFiles();
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
  async #failInterrupted(): Promise<void> {
    const { store, clock } = this.#ctx;
    const now = clock.now();
    for (const id of await store.installerBuilds.idsWithStatus("running")) {
      await store.transaction(async (tx) => {
        await appendBuildLog(
          tx.installerBuilds,
          id,
          now,
          "failed: the server stopped while this build was running; queue it again with POST …/build",
        );
        await tx.installerBuilds.update(id, { status: "failed", finishedAt: now });
      });
    }
  }

  /** MSIs and scratch folders no build names (a deleted project's, a replaced one's, a crash's). */
  async #removeUnreferencedFiles(): Promise<void> {
    const dir = installersDir(this.#ctx);
    const kept = new Set(await this.#ctx.store.installerBuilds.keptFiles());
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
    if (!this.#started) return;
    if (this.#current) {
      this.#again = true;
      return;
    }
    this.#again = false;
    const abort = new AbortController();
    const done = this.#runNext(abort.signal)
      .catch((err: unknown) => {
        this.#ctx.logger.error("reading the installer build queue failed", {
          error: err instanceof Error ? err.message : String(err),
        });
        return false;
      })
      .then((ran) => {
        this.#current = undefined;
        if (ran || this.#again) this.#next();
      });
    this.#current = { abort, done };
  }

  /** Runs the oldest queued build; false when none is queued. */
  async #runNext(signal: AbortSignal): Promise<boolean> {
    const row = await this.#ctx.store.installerBuilds.nextQueued();
    if (!row) return false;
    try {
      await this.#run(row, signal);
    } catch (err) {
      this.#ctx.logger.error("installer build crashed", {
        build_id: row.id,
        error: err instanceof Error ? err.message : String(err),
      });
    }
    return true;
  }

  /** Queues a log line behind the ones before it; #run waits for them all before it ends. */
  #log(buildId: string, message: string): void {
    const at = this.#ctx.clock.now();
    this.#logged = this.#logged
      .then(() => appendBuildLog(this.#ctx.store.installerBuilds, buildId, at, message))
      .catch((err: unknown) =>
        this.#ctx.logger.warn("writing an installer build log line failed", {
          build_id: buildId,
          error: err instanceof Error ? err.message : String(err),
        }),
      );
  }

  /** False when the build is gone (its project was deleted meanwhile). */
  async #set(buildId: string, values: InstallerBuildChange): Promise<boolean> {
    await this.#logged;
    return this.#ctx.store.installerBuilds.update(buildId, values);
  }

  async #run(queued: InstallerBuildRow, signal: AbortSignal): Promise<void> {
    const ctx = this.#ctx;
    const id = queued.id;
    const started = Date.now();
    await this.#set(id, { status: "running", startedAt: ctx.clock.now() });
    this.#log(id, `build started${queued.rebuild ? " (rebuild: the cache was not consulted)" : ""}`);
    const dir = installersDir(ctx);
    const outFile = join(dir, msiFileName(id));
    let codeId: string | undefined;
    try {
      const project = await ctx.store.field.project(queued.projectId);
      if (!project) throw new MsiBuildError("the project was deleted");
      const inputs = installerInputs(this.#artifacts, project, queued.serverUrl);
      if ("missing" in inputs) throw new MsiBuildError(inputs.missing);
      await this.#set(id, { agentVersion: inputs.agentVersion, inputsSha256: inputs.inputsSha256 });
      const code = await issueEnrollmentCode(ctx, null, project.id, { purpose: "msi" });
      codeId = code.id;
      await this.#set(id, { enrollmentCodeId: code.id });
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
      // Before it is announced: whoever sees it succeeded finds the replaced MSIs' codes revoked.
      const revoked = await this.#revoke(
        project.id,
        (c) => c.purpose === "msi" && c.id !== code.id,
        `replaced by the MSI of build ${id}`,
      );
      if (revoked.length > 0)
        this.#log(id, `revoked the codes of the MSIs it replaces: ${revoked.join(", ")}`);
      const finishedAt = ctx.clock.now();
      this.#log(id, `succeeded in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      const changed = await this.#set(id, {
        status: "succeeded",
        finishedAt,
        file: msiFileName(id),
        bytes: built.bytes,
        sha256: built.sha256,
      });
      if (!changed)
        await rm(outFile, { force: true }); // its project was deleted meanwhile
      else await this.#removeReplaced(queued.projectId, id);
      ctx.logger.info("installer built", { build_id: id, project_id: queued.projectId, bytes: built.bytes });
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      this.#log(id, `failed: ${reason}`);
      // No MSI holds it, and it was never shown to anyone.
      const failed = codeId;
      if (failed) await this.#revoke(queued.projectId, (c) => c.id === failed, `build ${id} failed`);
      await this.#set(id, { status: "failed", finishedAt: ctx.clock.now() });
      await rm(outFile, { force: true });
      ctx.logger.warn("installer build failed", { build_id: id, project_id: queued.projectId, reason });
    }
  }

  /** Only the project's newest MSI is kept: each is ~40 MB, and an older one is never served again. */
  async #removeReplaced(projectId: string, newest: string): Promise<void> {
    const replaced = await this.#ctx.store.installerBuilds.releaseReplaced(projectId, newest);
    for (const id of replaced) await rm(join(installersDir(this.#ctx), msiFileName(id)), { force: true });
  }

  /**
   * Revokes MSI codes that no served MSI holds: those of the MSIs a build replaces (a copy of one
   * must not enroll for the rest of its 7 days; with them, any an interrupted build left) and a
   * failed build's own. Never fails the build: a code left active still expires, and the next
   * build revokes it.
   */
  async #revoke(
    projectId: string,
    which: (code: EnrollmentCodeRow) => boolean,
    reason: string,
  ): Promise<string[]> {
    try {
      return await revokeCodesAsSystem(this.#ctx, projectId, which, reason);
    } catch (err) {
      this.#ctx.logger.warn("revoking an MSI's enrollment code failed", {
        project_id: projectId,
        error: err instanceof Error ? err.message : String(err),
      });
      return [];
    }
  }
}
