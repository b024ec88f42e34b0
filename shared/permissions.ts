/**
 * Roles and what each may do, without zod: the operator console (console/) bundles this file, and
 * its navigation follows the same grants the API enforces.
 */
export const ROLES = ["superadmin", "admin", "supervisor", "operador", "anh_reader"] as const;
export type Role = (typeof ROLES)[number];

/**
 * What a role may do. Project scoping is separate: superadmin and admin see every project,
 * the others only the projects they are assigned to (a project outside them is a 404).
 */
export const PERMISSIONS = [
  "users:manage",
  "projects:read",
  "projects:write",
  /** Create and delete projects. Deleting erases the project's records and ANH reports. */
  "projects:manage",
  "config:read",
  "config:write",
  "telemetry:read",
  "telemetry:write",
  "alarms:read",
  "alarms:ack",
  "records:read",
  "records:write",
  "reports:read",
  "reports:write",
  "billing:read",
  "billing:write",
  "billing:admin",
  "audit:read",
  "dashboard:read",
] as const;
export type Permission = (typeof PERMISSIONS)[number];

const operador: Permission[] = [
  "projects:read",
  "config:read",
  "telemetry:read",
  "telemetry:write",
  "alarms:read",
  "alarms:ack",
  "records:read",
  "records:write",
  "reports:read",
  "billing:read",
  "dashboard:read",
];

const supervisor: Permission[] = [
  ...operador,
  "projects:write",
  "config:write",
  "reports:write",
  "audit:read",
];

const admin: Permission[] = PERMISSIONS.filter((p) => p !== "billing:admin");

const grants: Record<Role, ReadonlySet<Permission>> = {
  superadmin: new Set(PERMISSIONS),
  admin: new Set(admin),
  supervisor: new Set(supervisor),
  operador: new Set(operador),
  anh_reader: new Set<Permission>(["projects:read", "reports:read", "records:read", "dashboard:read"]),
};

export function roleCan(role: Role, permission: Permission): boolean {
  return grants[role].has(permission);
}

/** Roles that see every project without assignment. */
export function seesAllProjects(role: Role): boolean {
  return role === "superadmin" || role === "admin";
}
