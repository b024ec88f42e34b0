import { eq, inArray } from "drizzle-orm";
import { notFound } from "../../errors.ts";
import { appendAudit } from "../../store/sqlite/append-audit.ts";
import { projects, userProjects } from "../../store/sqlite/schema/index.ts";
import type { AuthContext } from "../auth/auth-context.ts";
import type { ServiceContext } from "../context.ts";
import { assertMayManage } from "./admin-rules.ts";
import { getUserRow } from "./get-user.ts";
import { type UserDto, userDtoOf } from "./user-dto.ts";

/**
 * Replaces the set of projects assigned to a user. Every id must name an existing project,
 * else 404 and nothing changes. Superadmin and admin see every project regardless.
 */
export function setUserProjects(
  ctx: ServiceContext,
  auth: AuthContext,
  userId: string,
  projectIds: string[],
): UserDto {
  const wanted = [...new Set(projectIds)];
  const now = ctx.clock.now();
  const dto = ctx.db.transaction((tx) => {
    const user = getUserRow(tx, userId);
    assertMayManage(auth, user);
    if (wanted.length > 0) {
      const found = new Set(
        tx
          .select({ id: projects.id })
          .from(projects)
          .where(inArray(projects.id, wanted))
          .all()
          .map((p) => p.id),
      );
      const missing = wanted.find((id) => !found.has(id));
      if (missing) throw notFound(`project ${missing}`);
    }
    const before = userDtoOf(tx, user);
    tx.delete(userProjects).where(eq(userProjects.userId, userId)).run();
    for (const projectId of wanted) tx.insert(userProjects).values({ userId, projectId }).run();
    const after = userDtoOf(tx, user);
    appendAudit(tx, {
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
