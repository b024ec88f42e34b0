import { eq } from "drizzle-orm";
import { notFound } from "../../errors.ts";
import type { DbOrTx } from "../../store/sqlite/append-audit.ts";
import { users } from "../../store/sqlite/schema/index.ts";
import type { ServiceContext } from "../context.ts";
import { type UserDto, userDtoOf, visibleProjectSummaries } from "./user-dto.ts";

/** The user row, or 404. */
export function getUserRow(db: DbOrTx, userId: string) {
  const user = db.select().from(users).where(eq(users.id, userId)).get();
  if (!user) throw notFound("user");
  return user;
}

export function getUserWithProjects(ctx: ServiceContext, userId: string) {
  const user = getUserRow(ctx.db, userId);
  return { user, projects: visibleProjectSummaries(ctx, user) };
}

export function getUserDto(ctx: ServiceContext, userId: string): UserDto {
  return userDtoOf(ctx.db, getUserRow(ctx.db, userId));
}
