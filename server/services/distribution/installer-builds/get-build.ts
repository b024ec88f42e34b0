import { and, eq } from "drizzle-orm";
import { notFound } from "../../../errors.ts";
import { installerBuilds, projects } from "../../../store/sqlite/schema/index.ts";
import { type AuthContext, assertProjectVisible } from "../../auth/auth-context.ts";
import type { ServiceContext } from "../../context.ts";
import { type InstallerBuildDto, toInstallerBuildDto } from "./build-dto.ts";

/** GET …/builds/{build_id}: one build of one of the caller's projects, with its log. */
export function getInstallerBuild(
  ctx: ServiceContext,
  auth: AuthContext,
  projectId: string,
  buildId: string,
): InstallerBuildDto {
  assertProjectVisible(auth, projectId);
  if (!ctx.db.select({ id: projects.id }).from(projects).where(eq(projects.id, projectId)).get())
    throw notFound("project");
  const row = ctx.db
    .select()
    .from(installerBuilds)
    .where(and(eq(installerBuilds.id, buildId), eq(installerBuilds.projectId, projectId)))
    .get();
  if (!row) throw notFound("installer build");
  return toInstallerBuildDto(row);
}
