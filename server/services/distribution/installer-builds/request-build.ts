import { randomUUID } from "node:crypto";
import { and, eq, inArray } from "drizzle-orm";
import { installerBuilds, projects } from "../../../db/schema/index.ts";
import { notFound } from "../../../http/errors.ts";
import { appendAudit } from "../../audit/append-audit.ts";
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

/**
 * Asks for the project's MSI to be built. One build at a time per project: while one is queued or
 * running, that one is returned and nothing starts. Otherwise the cache answers (an MSI of the same
 * agent version and inputs whose enrollment code is still good), unless `rebuild`; else a build is
 * queued for the worker (build-worker.ts) and audited.
 */
export function requestInstallerBuild(
  ctx: ServiceContext,
  artifacts: AgentArtifacts,
  auth: AuthContext,
  projectId: string,
  opts: { serverUrl: string; rebuild: boolean },
): BuildRequest {
  assertProjectVisible(auth, projectId);
  const result = ctx.db.transaction(
    (tx): BuildRequest => {
      const project = tx
        .select({ id: projects.id, name: projects.name })
        .from(projects)
        .where(eq(projects.id, projectId))
        .get();
      if (!project) throw notFound("project");
      const active = tx
        .select()
        .from(installerBuilds)
        .where(
          and(
            eq(installerBuilds.projectId, projectId),
            inArray(installerBuilds.status, ["queued", "running"]),
          ),
        )
        .get();
      if (active) return { build: active, queued: false };
      const inputs = installerInputs(artifacts, project, opts.serverUrl);
      if (!opts.rebuild && !("missing" in inputs)) {
        const cached = servableBuild(ctx, projectId, inputs);
        if (cached) return { build: cached, queued: false };
      }
      const now = ctx.clock.now();
      const build = tx
        .insert(installerBuilds)
        .values({
          id: randomUUID(),
          projectId,
          status: "queued",
          rebuild: opts.rebuild,
          serverUrl: opts.serverUrl,
          requestedBy: auth.userId,
          createdAt: now,
        })
        .returning()
        .get();
      appendAudit(tx, {
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
    },
    { behavior: "immediate" },
  );
  if (result.queued) ctx.events.emit("installerBuildQueued", { buildId: result.build.id, projectId });
  return result;
}
