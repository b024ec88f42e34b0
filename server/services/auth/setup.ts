import { AppError } from "../../errors.ts";
import type { ServiceContext } from "../context.ts";
import { createUser, type NewUser } from "../users/create-user.ts";

export async function setupStatus(ctx: ServiceContext) {
  const n = await ctx.store.identity.userCount();
  return { requires_setup: n === 0, has_users: n > 0 };
}

/** Creates the first account, always superadmin; 409 once any user exists. */
export async function registerFirstUser(ctx: ServiceContext, input: Omit<NewUser, "role">) {
  if (!(await setupStatus(ctx)).requires_setup) throw alreadyConfigured();
  return createUser(
    ctx,
    { ...input, role: "superadmin" },
    {
      precondition: async (tx) => {
        // Re-checked inside the transaction: two first-time requests cannot both succeed.
        if ((await tx.identity.userCount()) > 0) throw alreadyConfigured();
      },
    },
  );
}

const alreadyConfigured = () => new AppError("AlreadyConfigured", "initial setup is already done");
