import { z } from "zod";
import { ROLES } from "./permissions.ts";

export { PERMISSIONS, type Permission, ROLES, type Role, roleCan, seesAllProjects } from "./permissions.ts";
export const roleSchema = z.enum(ROLES);
