import type { ServiceContext } from "../context.ts";
import { toUserDto, type UserDto } from "./user-dto.ts";

/** Every user, ordered by email, with assigned project ids. */
export async function listUsers(ctx: ServiceContext): Promise<UserDto[]> {
  const rows = await ctx.store.identity.users();
  const projectsByUser = await ctx.store.identity.assignedProjects(rows.map((r) => r.id));
  return rows.map((r) => toUserDto(r, projectsByUser.get(r.id) ?? []));
}
