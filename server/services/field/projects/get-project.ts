import { type ConfigStatusDto, configStatusOf } from "../../agents/config-status.ts";
import type { AuthContext } from "../../auth/auth-context.ts";
import type { ServiceContext } from "../../context.ts";
import { type ProjectDto, type ProjectTreeDto, toProjectDto } from "../dto.ts";
import { visibleProject } from "../lookup.ts";
import { projectTree } from "./project-tree.ts";

/** One project, with where its configuration stands against the last deployment. */
export async function getProject(
  ctx: ServiceContext,
  auth: AuthContext,
  id: string,
): Promise<ProjectDto & { config_status: ConfigStatusDto }> {
  const project = toProjectDto(await visibleProject(ctx.store.field, auth, id));
  return { ...project, config_status: await configStatusOf(ctx, id) };
}

/** Read in one transaction so the tree is a consistent snapshot. */
export function getProjectTree(ctx: ServiceContext, auth: AuthContext, id: string): Promise<ProjectTreeDto> {
  return ctx.store.transaction(async (tx) => projectTree(tx.field, await visibleProject(tx.field, auth, id)));
}
