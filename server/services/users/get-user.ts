import { notFound } from "../../errors.ts";
import type { IdentityStore } from "../../store/ports/identity-store.ts";
import type { UserRow } from "../../store/rows.ts";
import type { ServiceContext } from "../context.ts";
import { type UserDto, userDtoOf, visibleProjectSummaries } from "./user-dto.ts";

/** The user row, or 404. */
export async function getUserRow(identity: IdentityStore, userId: string): Promise<UserRow> {
  const user = await identity.user(userId);
  if (!user) throw notFound("user");
  return user;
}

export async function getUserWithProjects(ctx: ServiceContext, userId: string) {
  const user = await getUserRow(ctx.store.identity, userId);
  return { user, projects: await visibleProjectSummaries(ctx.store, user) };
}

export async function getUserDto(ctx: ServiceContext, userId: string): Promise<UserDto> {
  return userDtoOf(ctx.store.identity, await getUserRow(ctx.store.identity, userId));
}
