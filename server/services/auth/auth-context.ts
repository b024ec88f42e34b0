import { type Permission, type Role, roleCan, seesAllProjects } from "../../../shared/roles.ts";
import { forbidden, notFound } from "../../errors.ts";

/** Who is calling, resolved from a valid access token of a live session. */
export type AuthContext = {
  userId: string;
  sessionId: string;
  email: string;
  role: Role;
  /** Assigned project ids; ignored for roles that see every project. */
  projectIds: ReadonlySet<string>;
  /** Access token expiry, epoch seconds. */
  expiresAt: number;
};

/** 403 unless the caller's role grants `permission`. */
export function authorize(auth: AuthContext, permission: Permission): void {
  if (!roleCan(auth.role, permission))
    throw forbidden(`the ${auth.role} role does not have the ${permission} permission`);
}

export function canSeeProject(auth: AuthContext, projectId: string): boolean {
  return seesAllProjects(auth.role) || auth.projectIds.has(projectId);
}

/** 404 (existence is not revealed) unless the project is one of the caller's. */
export function assertProjectVisible(auth: AuthContext, projectId: string, what = "project"): void {
  if (!canSeeProject(auth, projectId)) throw notFound(what);
}
