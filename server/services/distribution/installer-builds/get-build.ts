import { notFound } from "../../../errors.ts";
import { type AuthContext, assertProjectVisible } from "../../auth/auth-context.ts";
import type { ServiceContext } from "../../context.ts";
import { type InstallerBuildDto, toInstallerBuildDto } from "./build-dto.ts";

/** GET …/builds/{build_id}: one build of one of the caller's projects, with its log. */
export async function getInstallerBuild(
  ctx: ServiceContext,
  auth: AuthContext,
  projectId: string,
  buildId: string,
): Promise<InstallerBuildDto> {
  assertProjectVisible(auth, projectId);
  if (!(await ctx.store.field.project(projectId))) throw notFound("project");
  const row = await ctx.store.installerBuilds.get(buildId);
  if (row?.projectId !== projectId) throw notFound("installer build");
  return toInstallerBuildDto(row);
}
