import { asc, inArray } from "drizzle-orm";
import { seesAllProjects } from "../../../../shared/roles.ts";
import { projects } from "../../../store/sqlite/schema/index.ts";
import type { AuthContext } from "../../auth/auth-context.ts";
import type { ServiceContext } from "../../context.ts";
import { type ProjectDto, toProjectDto } from "../dto.ts";

/** The caller's projects (spec §4: "those of the caller"); every project for superadmin and admin. */
export function listProjects(ctx: ServiceContext, auth: AuthContext): ProjectDto[] {
  const query = ctx.db.select().from(projects);
  if (seesAllProjects(auth.role)) return query.orderBy(asc(projects.name)).all().map(toProjectDto);
  if (auth.projectIds.size === 0) return [];
  return query
    .where(inArray(projects.id, [...auth.projectIds]))
    .orderBy(asc(projects.name))
    .all()
    .map(toProjectDto);
}
