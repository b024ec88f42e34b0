import { randomUUID } from "node:crypto";
import { notFound } from "../../../errors.ts";
import { type AuthContext, assertProjectVisible } from "../../auth/auth-context.ts";
import type { ServiceContext } from "../../context.ts";
import type { AgentArtifacts } from "../agent-artifacts.ts";
import type { InstallerBuildRow } from "./build-dto.ts";
import { installerInputs } from "./installer-inputs.ts";
import { servableBuild } from "./servable-build.ts";

export type BuildRequest = {
  /** Queued, running, or (from the cache) succeeded. */
  build: InstallerBuildRow;
  /** A new build was queued by this request. */
  queued: boolean;
};

export type BuildOptions = {
  serverUrl: string;
  /** Ignore the cache (POST …/rebuild). */
  rebuild: boolean;
  /**
   * Queue again when the project's last build failed on these same inputs (POST …/build and
   * …/rebuild). GET …/installer reports that failure instead: a client polling it must not start
   * a failing build, and issue an enrollment code, on every poll.
   */
  retryFailed: boolean;
};

/**
 * Asks for the project's MSI to be built. One build at a time per project: while one is queued or
 * running, that one is returned and nothing starts. Otherwise the cache answers (an MSI of the same
 * agent version and inputs whose enrollment code is still good), unless `rebuild`; else a build is
 * queued for the worker (build-worker.ts) and audited.
 */
export async function requestInstallerBuild(
  ctx: ServiceContext,
  artifacts: AgentArtifacts,
  auth: AuthContext,
  projectId: string,
  opts: BuildOptions,
): Promise<BuildRequest> {
  assertProjectVisible(auth, projectId);
  const result = await ctx.store.transaction(
    async (tx): Promise<BuildRequest> => {
      const project = await tx.field.project(projectId);
      if (!project) throw notFound("project");
      const active = await tx.installerBuilds.activeOf(projectId);
      if (active) return { build: active, queued: false };
      const inputs = installerInputs(artifacts, project, opts.serverUrl);
      // While the server's own build makes the Windows executable, a build queued now would fail.
      if ("missing" in inputs && artifacts.build.beingBuilt("windows-x64"))
        throw artifacts.build.notServed(["windows-x64"], "the Windows agent executable");
      if (!opts.rebuild && !("missing" in inputs)) {
        const cached = await servableBuild(ctx, tx, projectId, inputs);
        if (cached) return { build: cached, queued: false };
      }
      if (!opts.retryFailed) {
        const latest = await tx.installerBuilds.latestOf(projectId);
        const sameInputs =
          latest?.serverUrl === opts.serverUrl &&
          latest.inputsSha256 === ("missing" in inputs ? null : inputs.inputsSha256);
        if (latest?.status === "failed" && sameInputs) return { build: latest, queued: false };
      }
      const now = ctx.clock.now();
      const build = await tx.installerBuilds.insert({
        id: randomUUID(),
        projectId,
        status: "queued",
        rebuild: opts.rebuild,
        serverUrl: opts.serverUrl,
        requestedBy: auth.userId,
        createdAt: now,
      });
      await tx.audit.append({
        at: now,
        userId: auth.userId,
        projectId,
        entity: "installer_build",
        entityId: build.id,
        action: "create",
        before: null,
        after: { status: "queued", rebuild: opts.rebuild, server_url: opts.serverUrl },
      });
      return { build, queued: true };
      // Concurrent requests of a project: one inserts, the others' inserts meet the one-active index
      // (PostgreSQL) and run again, finding that build (SQLite runs them one after another).
    },
    { snapshot: true },
  );
  if (result.queued) ctx.events.emit("installerBuildQueued", { buildId: result.build.id, projectId });
  return result;
}
