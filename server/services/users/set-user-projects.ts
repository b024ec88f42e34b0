import { notFound } from "../../errors.ts";
import type { AuthContext } from "../auth/auth-context.ts";
import type { ServiceContext } from "../context.ts";
import { assertMayManage } from "./admin-rules.ts";
import { getUserRow } from "./get-user.ts";
import { type UserDto, userDtoOf } from "./user-dto.ts";

/**
 * Replaces the set of projects assigned to a user. Every id must name an existing project,
 * else 404 and nothing changes. Superadmin and admin see every project regardless.
 */
export async function setUserProjects(
  ctx: ServiceContext,
  auth: AuthContext,
  userId: string,
  projectIds: string[],
): Promise<UserDto> {
  const wanted = [...new Set(projectIds)];
  const now = ctx.clock.now();
  const dto = await ctx.store.transaction(async (tx) => {
    const user = await getUserRow(tx.identity, userId);
    assertMayManage(auth, user);
    if (wanted.length > 0) {
      const found = new Set((await tx.field.projects(wanted)).map((p) => p.id));
      const missing = wanted.find((id) => !found.has(id));
      if (missing) throw notFound(`project ${missing}`);
    }
    const before = await userDtoOf(tx.identity, user);
    await tx.identity.replaceUserProjects(userId, wanted);
    const after = await userDtoOf(tx.identity, user);
    await tx.audit.append({
      at: now,
      userId: auth.userId,
      projectId: null,
      entity: "user",
      entityId: userId,
      action: "update",
      before: { projects: before.projects },
      after: { projects: after.projects },
    });
    return after;
  });
  // After commit: live MQTT subscriptions under a removed project end at once.
  ctx.events.emit("accessChanged", { userId });
  return dto;
}
