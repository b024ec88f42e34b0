import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import type { Role } from "../../../shared/roles.ts";
import { users } from "../../db/schema/index.ts";
import { AppError } from "../../http/errors.ts";
import { hashPassword } from "../auth/passwords.ts";
import type { ServiceContext } from "../context.ts";

type Tx = Parameters<Parameters<ServiceContext["db"]["transaction"]>[0]>[0];

export type NewUser = { email: string; name: string; role: Role; password: string };

/** Inserts a user; 409 when the email is taken. Emails are compared lower-cased. */
export async function createUser(
  ctx: ServiceContext,
  input: NewUser,
  /** Checked inside the insert's transaction; throw to refuse. */
  precondition: (tx: Tx) => void = () => {},
) {
  const email = input.email.trim().toLowerCase();
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
  // The uniqueness check and insert run in one synchronous transaction: no interleaving.
  return ctx.db.transaction((tx) => {
    precondition(tx);
    if (tx.select({ id: users.id }).from(users).where(eq(users.email, email)).get()) {
      throw new AppError("Conflict", `a user with email ${email} already exists`);
    }
    return tx.insert(users).values(row).returning().get();
  });
}
