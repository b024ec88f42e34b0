import { count } from "drizzle-orm";
import { AppError } from "../../errors.ts";
import { users } from "../../store/sqlite/schema/index.ts";
import type { ServiceContext } from "../context.ts";
import { createUser, type NewUser } from "../users/create-user.ts";

export function setupStatus(ctx: ServiceContext) {
  const n = ctx.db.select({ n: count() }).from(users).get()?.n ?? 0;
  return { requires_setup: n === 0, has_users: n > 0 };
}

/** Creates the first account, always superadmin; 409 once any user exists. */
export async function registerFirstUser(ctx: ServiceContext, input: Omit<NewUser, "role">) {
  if (!setupStatus(ctx).requires_setup) throw alreadyConfigured();
  return createUser(
    ctx,
    { ...input, role: "superadmin" },
    {
      precondition: (tx) => {
        // Re-checked inside the transaction: two first-time requests cannot both succeed.
        if ((tx.select({ n: count() }).from(users).get()?.n ?? 0) > 0) throw alreadyConfigured();
      },
    },
  );
}

const alreadyConfigured = () => new AppError("AlreadyConfigured", "initial setup is already done");
