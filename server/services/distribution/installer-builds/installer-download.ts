import { openSync } from "node:fs";
import { join } from "node:path";
import type { AuthContext } from "../../auth/auth-context.ts";
import type { ServiceContext } from "../../context.ts";
import type { AgentArtifacts } from "../agent-artifacts.ts";
import type { InstallerBuildRow } from "./build-dto.ts";
import { installersDir } from "./installer-files.ts";
import { requestInstallerBuild } from "./request-build.ts";

export type InstallerDownload =
  | { kind: "file"; build: InstallerBuildRow; fd: number; bytes: number; filename: string }
  | { kind: "pending"; build: InstallerBuildRow };

/** `caudal-agent-<project name>.msi`, reduced to characters every file system and browser keeps. */
function downloadName(projectName: string, projectId: string): string {
  const slug = projectName
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 48);
  return `caudal-agent-${slug || projectId}.msi`;
}

/**
 * GET …/installer: the project's MSI when one is built for the current inputs and its enrollment
 * code is still good, opened here so a newer build cannot remove it before it is streamed;
 * otherwise the build that is queued or running, or one queued now, or the last build when it
 * failed on these same inputs (POST …/build tries again).
 */
export async function installerDownload(
  ctx: ServiceContext,
  artifacts: AgentArtifacts,
  auth: AuthContext,
  projectId: string,
  serverUrl: string,
): Promise<InstallerDownload> {
  for (;;) {
    const { build } = await requestInstallerBuild(ctx, artifacts, auth, projectId, {
      serverUrl,
      rebuild: false,
      retryFailed: false,
    });
    if (build.status !== "succeeded" || !build.file || build.bytes === null)
      return { kind: "pending", build };
    let fd: number;
    try {
      fd = openSync(join(installersDir(ctx), build.file), "r");
    } catch {
      // Removed since the cache looked: forget it, and ask again (this time a build is queued).
      await ctx.store.installerBuilds.update(build.id, { file: null });
      continue;
    }
    const project = await ctx.store.field.project(projectId);
    return {
      kind: "file",
      build,
      fd,
      bytes: build.bytes,
      filename: downloadName(project?.name ?? "", projectId),
    };
  }
}
