import { eq } from "drizzle-orm";
import { users } from "../../db/schema/index.ts";
import { notFound } from "../../http/errors.ts";
import type { ServiceContext } from "../context.ts";
import { visibleProjectSummaries } from "./user-dto.ts";

export function getUserRow(ctx: ServiceContext, userId: string) {
  const user = ctx.db.select().from(users).where(eq(users.id, userId)).get();
  if (!user) throw notFound("user");
  return user;
}

export function getUserWithProjects(ctx: ServiceContext, userId: string) {
  const user = getUserRow(ctx, userId);
  return { user, projects: visibleProjectSummaries(ctx, user) };
}
