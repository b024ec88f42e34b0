import { seesAllProjects } from "../../../shared/roles.ts";
import type { IdentityStore } from "../../store/ports/identity-store.ts";
import type { UserRow } from "../../store/rows.ts";
import type { StorePorts } from "../../store/store.ts";

export type UserDto = {
  id: string;
  email: string;
  name: string;
  role: UserRow["role"];
  is_active: boolean;
  two_factor_enabled: boolean;
  projects: string[];
  created_at: string;
};

export function toUserDto(row: UserRow, projectIds: string[]): UserDto {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    is_active: row.isActive,
    two_factor_enabled: row.twoFactorEnabled,
    projects: projectIds,
    created_at: row.createdAt.toISOString(),
  };
}

/** One user's DTO, its assigned projects read through `identity` (a transaction's port works too). */
export async function userDtoOf(identity: IdentityStore, row: UserRow): Promise<UserDto> {
  return toUserDto(row, (await identity.assignedProjects([row.id])).get(row.id) ?? []);
}

/** The {id, name} list a LoginResponse carries: every project for superadmin/admin, else the assigned ones. */
export async function visibleProjectSummaries(
  ports: Pick<StorePorts, "field" | "identity">,
  user: Pick<UserRow, "id" | "role">,
): Promise<{ id: string; name: string }[]> {
  const ids = seesAllProjects(user.role) ? undefined : await ports.identity.projectIdsOf(user.id);
  return (await ports.field.projects(ids)).map((p) => ({ id: p.id, name: p.name }));
}
