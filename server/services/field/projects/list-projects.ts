import { seesAllProjects } from "../../../../shared/roles.ts";
import type { AuthContext } from "../../auth/auth-context.ts";
import type { ServiceContext } from "../../context.ts";
import { type ProjectDto, toProjectDto } from "../dto.ts";

/** The caller's projects (spec §4: "those of the caller"); every project for superadmin and admin. */
export async function listProjects(ctx: ServiceContext, auth: AuthContext): Promise<ProjectDto[]> {
  const rows = await ctx.store.field.projects(seesAllProjects(auth.role) ? undefined : [...auth.projectIds]);
  return rows.map(toProjectDto);
}
