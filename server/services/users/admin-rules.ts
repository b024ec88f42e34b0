import type { Role } from "../../../shared/roles.ts";
import { AppError, forbidden } from "../../errors.ts";
import type { IdentityStore } from "../../store/ports/identity-store.ts";
import type { AuthContext } from "../auth/auth-context.ts";

/**
 * Spec §5.4 gives admins user management; a superadmin outranks them. Only a superadmin may
 * create a superadmin, promote to superadmin, or change anything about an existing superadmin.
 */
export function assertMayManage(auth: AuthContext, target: { role: Role } | null, newRole?: Role): void {
  if (auth.role === "superadmin") return;
  if (target?.role === "superadmin") throw forbidden("only a superadmin may modify a superadmin");
  if (newRole === "superadmin") throw forbidden("only a superadmin may grant the superadmin role");
}

/**
 * Refuses a change that would leave no active superadmin: nobody could then manage
 * superadmins or billing administration (spec §5.4) without direct database access.
 */
export async function assertSuperadminRemains(
  identity: IdentityStore,
  target: { id: string; role: Role; isActive: boolean },
  next: { role: Role; isActive: boolean },
): Promise<void> {
  const wasActiveSuperadmin = target.role === "superadmin" && target.isActive;
  const staysActiveSuperadmin = next.role === "superadmin" && next.isActive;
  if (!wasActiveSuperadmin || staysActiveSuperadmin) return;
  if ((await identity.activeSuperadminsOtherThan(target.id)) === 0)
    throw new AppError("Conflict", "the last active superadmin cannot be demoted or deactivated");
}
