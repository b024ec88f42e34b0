import { type ConfigStatusDto, configStatusOf } from "../../agents/config-status.ts";
import type { AuthContext } from "../../auth/auth-context.ts";
import type { ServiceContext } from "../../context.ts";
import { type ProjectDto, type ProjectTreeDto, toProjectDto } from "../dto.ts";
import { visibleProject } from "../lookup.ts";
import { projectTree } from "./project-tree.ts";

/** One project, with where its configuration stands against the last deployment. */
export function getProject(
  ctx: ServiceContext,
  auth: AuthContext,
  id: string,
): ProjectDto & { config_status: ConfigStatusDto } {
  const project = toProjectDto(visibleProject(ctx.db, auth, id));
  return { ...project, config_status: configStatusOf(ctx, id) };
}

/** Read in one transaction so the tree is a consistent snapshot. */
export function getProjectTree(ctx: ServiceContext, auth: AuthContext, id: string): ProjectTreeDto {
  return ctx.db.transaction((tx) => projectTree(tx, visibleProject(tx, auth, id)));
}
