import type { Role } from "../../../shared/roles.ts";
import { AppError, notFound } from "../../errors.ts";
import type { AuthContext } from "../auth/auth-context.ts";
import { hashPassword, verifyPassword } from "../auth/passwords.ts";
import type { ServiceContext } from "../context.ts";
import { assertMayManage, assertSuperadminRemains } from "./admin-rules.ts";
import { emailTaken, normaliseEmail } from "./create-user.ts";
import { getUserRow } from "./get-user.ts";
import { type UserDto, userDtoOf } from "./user-dto.ts";

export type UserUpdate = {
  email: string;
  name: string;
  role: Role;
  password: string;
  /** Omitted: unchanged. */
  is_active?: boolean | undefined;
};

/**
 * PUT /admin/users/{id}: replaces email, name, role and password (and is_active when given).
 * A changed password or a deactivation ends every session of the user.
 */
export async function updateUser(
  ctx: ServiceContext,
  auth: AuthContext,
  userId: string,
  input: UserUpdate,
): Promise<UserDto> {
  const current = await getUserRow(ctx.store.identity, userId);
  assertMayManage(auth, current, input.role);
  if (input.is_active === false && userId === auth.userId) {
    throw new AppError("Conflict", "you may not deactivate your own account");
  }
  // argon2 is slow and async, so it runs before the transaction; the row is re-read inside it.
  const passwordChanged = !(await verifyPassword(current.passwordHash, input.password));
  const newHash = passwordChanged ? await hashPassword(input.password) : null;
  const email = normaliseEmail(input.email);
  const now = ctx.clock.now();

  const result = await ctx.store.transaction(async (tx) => {
    const before = await getUserRow(tx.identity, userId);
    assertMayManage(auth, before, input.role);
    const isActive = input.is_active ?? before.isActive;
    await assertSuperadminRemains(tx.identity, before, { role: input.role, isActive });
    if ((await tx.identity.userIdWithEmail(email, userId)) !== undefined) throw emailTaken(email);
    // An unchanged password keeps the row's current hash, so a reset that landed meanwhile stands.
    const passwordHash = newHash ?? before.passwordHash;
    const after = await tx.identity.updateUser(userId, {
      email,
      name: input.name.trim(),
      role: input.role,
      isActive,
      passwordHash,
      updatedAt: now,
    });
    if (!after) throw notFound("user");
    const revoke = passwordChanged || (before.isActive && !isActive);
    if (revoke)
      await tx.identity.revokeUserSessions(userId, now, isActive ? "password_changed" : "user_disabled");
    const beforeDto = await userDtoOf(tx.identity, before);
    const afterDto = await userDtoOf(tx.identity, after);
    await tx.audit.append({
      at: now,
      userId: auth.userId,
      projectId: null,
      entity: "user",
      entityId: userId,
      action: "update",
      before: beforeDto,
      // The hash never enters the log; only the fact that the password changed.
      after: { ...afterDto, password_changed: passwordChanged },
    });
    return { dto: afterDto, revoke, roleChanged: before.role !== after.role };
  });
  if (result.revoke) ctx.events.emit("sessionRevoked", { sessionId: null, userId });
  else if (result.roleChanged) ctx.events.emit("accessChanged", { userId });
  return result.dto;
}
