import { asc } from "drizzle-orm";
import { users } from "../../store/sqlite/schema/index.ts";
import type { ServiceContext } from "../context.ts";
import { assignedProjects, toUserDto, type UserDto } from "./user-dto.ts";

/** Every user, ordered by email, with assigned project ids. */
export function listUsers(ctx: ServiceContext): UserDto[] {
  const rows = ctx.db.select().from(users).orderBy(asc(users.email)).all();
  const projectsByUser = assignedProjects(
    ctx.db,
    rows.map((r) => r.id),
  );
  return rows.map((r) => toUserDto(r, projectsByUser.get(r.id) ?? []));
}
