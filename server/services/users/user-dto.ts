import { asc, eq, inArray } from "drizzle-orm";
import type { DbOrTx } from "../../store/sqlite/append-audit.ts";
import { projects, userProjects, type users } from "../../store/sqlite/schema/index.ts";
import type { ServiceContext } from "../context.ts";

type UserRow = typeof users.$inferSelect;

export type UserDto = {
  id: string;
  email: string;
  name: string;
  role: UserRow["role"];
  is_active: boolean;
  two_factor_enabled: boolean;
  projects: string[];
  created_at: string;
};

export function toUserDto(row: UserRow, projectIds: string[]): UserDto {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    is_active: row.isActive,
    two_factor_enabled: row.twoFactorEnabled,
    projects: projectIds,
    created_at: row.createdAt.toISOString(),
  };
}

/** Assigned project ids per user, in one query, each list sorted. */
export function assignedProjects(db: DbOrTx, userIds: string[]): Map<string, string[]> {
  const out = new Map<string, string[]>(userIds.map((id) => [id, []]));
  if (userIds.length === 0) return out;
  const rows = db
    .select({ userId: userProjects.userId, projectId: userProjects.projectId })
    .from(userProjects)
    .where(inArray(userProjects.userId, userIds))
    .orderBy(asc(userProjects.projectId))
    .all();
  for (const r of rows) out.get(r.userId)?.push(r.projectId);
  return out;
}

/** One user's DTO, read through `db` (a transaction handle works too). */
export function userDtoOf(db: DbOrTx, row: UserRow): UserDto {
  return toUserDto(row, assignedProjects(db, [row.id]).get(row.id) ?? []);
}

/** The {id, name} list a LoginResponse carries: every project for superadmin/admin, else the assigned ones. */
export function visibleProjectSummaries(ctx: ServiceContext, user: Pick<UserRow, "id" | "role">) {
  if (user.role === "superadmin" || user.role === "admin") {
    return ctx.db
      .select({ id: projects.id, name: projects.name })
      .from(projects)
      .orderBy(projects.name)
      .all();
  }
  return ctx.db
    .select({ id: projects.id, name: projects.name })
    .from(userProjects)
    .innerJoin(projects, eq(projects.id, userProjects.projectId))
    .where(eq(userProjects.userId, user.id))
    .orderBy(projects.name)
    .all();
}
