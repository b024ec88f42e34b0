import { eq } from "drizzle-orm";
import { appendAudit } from "../../store/sqlite/append-audit.ts";
import { users } from "../../store/sqlite/schema/index.ts";
import type { AuthContext } from "../auth/auth-context.ts";
import { hashPassword } from "../auth/passwords.ts";
import { revokeUserSessionsIn } from "../auth/sessions.ts";
import type { ServiceContext } from "../context.ts";
import { assertMayManage } from "./admin-rules.ts";
import { getUserRow } from "./get-user.ts";
import { userDtoOf } from "./user-dto.ts";

/** Sets a new password and ends every session of the user: whoever held the old one is out. */
export async function resetPassword(
  ctx: ServiceContext,
  auth: AuthContext,
  userId: string,
  newPassword: string,
): Promise<void> {
  assertMayManage(auth, getUserRow(ctx.db, userId));
  const passwordHash = await hashPassword(newPassword);
  const now = ctx.clock.now();
  ctx.db.transaction((tx) => {
    const before = getUserRow(tx, userId);
    assertMayManage(auth, before);
    tx.update(users).set({ passwordHash, updatedAt: now }).where(eq(users.id, userId)).run();
    revokeUserSessionsIn(tx, userId, now, "password_reset");
    const dto = userDtoOf(tx, before);
    appendAudit(tx, {
      at: now,
      userId: auth.userId,
      projectId: null,
      entity: "user",
      entityId: userId,
      action: "update",
      before: dto,
      after: { ...dto, password_changed: true },
    });
  });
  ctx.events.emit("sessionRevoked", { sessionId: null, userId });
}
