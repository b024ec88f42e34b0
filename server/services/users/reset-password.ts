import type { AuthContext } from "../auth/auth-context.ts";
import { hashPassword } from "../auth/passwords.ts";
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
  assertMayManage(auth, await getUserRow(ctx.store.identity, userId));
  // argon2 runs before the transaction; the row is re-read inside it.
  const passwordHash = await hashPassword(newPassword);
  const now = ctx.clock.now();
  await ctx.store.transaction(async (tx) => {
    const before = await getUserRow(tx.identity, userId);
    assertMayManage(auth, before);
    await tx.identity.updateUser(userId, { passwordHash, updatedAt: now });
    await tx.identity.revokeUserSessions(userId, now, "password_reset");
    const dto = await userDtoOf(tx.identity, before);
    await tx.audit.append({
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
