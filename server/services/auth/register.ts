import { AppError } from "../../errors.ts";
import type { ServiceContext } from "../context.ts";
import { createUser, type NewUser } from "../users/create-user.ts";

/**
 * Self-registration (spec §4 POST /auth/register): off in production (403), never grants
 * superadmin or admin, and closed until the first account exists — otherwise a stranger
 * registering first would take the place of the administrator that setup creates.
 */
export async function registerUser(ctx: ServiceContext, input: NewUser) {
  if (ctx.config.NODE_ENV === "production") {
    throw new AppError("RegistrationDisabled", "self-registration is disabled in production");
  }
  if (input.role === "superadmin" || input.role === "admin") {
    throw new AppError("Forbidden", `self-registration may not grant the ${input.role} role`);
  }
  return createUser(ctx, input, {
    precondition: async (tx) => {
      if ((await tx.identity.userCount()) === 0) {
        throw new AppError(
          "RegistrationDisabled",
          "initial setup is not done; create the first account with POST /api/auth/setup/register",
        );
      }
    },
  });
}
