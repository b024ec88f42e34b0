import { seesAllProjects } from "../../../../shared/roles.ts";
import type { AuthContext } from "../../auth/auth-context.ts";
import type { ServiceContext } from "../../context.ts";
import { type AssetDto, toAssetDto } from "../dto.ts";
import { visibleProject } from "../lookup.ts";

/** GET /tanks: the tanks of one project (404 if not the caller's), or of every project the caller sees. */
export async function listTanks(
  ctx: ServiceContext,
  auth: AuthContext,
  projectId: string | undefined,
): Promise<AssetDto[]> {
  let projectIds: string[] | undefined;
  if (projectId !== undefined) {
    await visibleProject(ctx.store.field, auth, projectId);
    projectIds = [projectId];
  } else if (!seesAllProjects(auth.role)) {
    projectIds = [...auth.projectIds];
  }
  return (await ctx.store.field.tanks(projectIds)).map(toAssetDto);
}
