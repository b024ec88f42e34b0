import type { AuthContext } from "../../auth/auth-context.ts";
import type { ServiceContext } from "../../context.ts";
import { type ProjectDto, type ProjectTreeDto, toProjectDto } from "../dto.ts";
import { visibleProject } from "../lookup.ts";
import { projectTree } from "./project-tree.ts";

export function getProject(ctx: ServiceContext, auth: AuthContext, id: string): ProjectDto {
  return toProjectDto(visibleProject(ctx.db, auth, id));
}

/** Read in one transaction so the tree is a consistent snapshot. */
export function getProjectTree(ctx: ServiceContext, auth: AuthContext, id: string): ProjectTreeDto {
  return ctx.db.transaction((tx) => projectTree(tx, visibleProject(tx, auth, id)));
}
