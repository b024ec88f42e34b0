import { randomUUID } from "node:crypto";
import type { Role } from "../../../shared/roles.ts";
import { AppError } from "../../errors.ts";
import type { UserRow } from "../../store/rows.ts";
import type { StorePorts } from "../../store/store.ts";
import type { AuthContext } from "../auth/auth-context.ts";
import { hashPassword } from "../auth/passwords.ts";
import type { ServiceContext } from "../context.ts";
import { assertMayManage } from "./admin-rules.ts";
import { toUserDto } from "./user-dto.ts";

export type NewUser = { email: string; name: string; role: Role; password: string };

export type CreateUserOptions = {
  /** The administrator creating the user; absent for self-service (setup, registration). */
  actor?: AuthContext;
  /** Checked inside the insert's transaction, with its ports; throw to refuse. */
  precondition?: (tx: StorePorts) => Promise<void>;
};

export const normaliseEmail = (email: string) => email.trim().toLowerCase();

export const emailTaken = (email: string) =>
  new AppError("Conflict", `a user with email ${email} already exists`);

/** Inserts a user; 409 when the email is taken. Emails are compared lower-cased. */
export async function createUser(
  ctx: ServiceContext,
  input: NewUser,
  options: CreateUserOptions = {},
): Promise<UserRow> {
  if (options.actor) assertMayManage(options.actor, null, input.role);
  const email = normaliseEmail(input.email);
  const passwordHash = await hashPassword(input.password);
  const now = ctx.clock.now();
  const row = {
    id: randomUUID(),
    email,
    name: input.name.trim(),
    role: input.role,
    passwordHash,
    createdAt: now,
    updatedAt: now,
  };
  // The uniqueness check, insert and audit entry run in one transaction, argon2 before it. The
  // check holds other email checks off until it commits (IdentityStore), so a concurrent create
  // of the same email answers 409.
  return ctx.store.transaction(async (tx) => {
    await options.precondition?.(tx);
    if ((await tx.identity.userIdWithEmail(email)) !== undefined) throw emailTaken(email);
    const created = await tx.identity.insertUser(row);
    await tx.audit.append({
      at: now,
      userId: options.actor?.userId ?? created.id,
      projectId: null,
      entity: "user",
      entityId: created.id,
      action: "create",
      before: null,
      after: toUserDto(created, []),
    });
    return created;
  });
}
