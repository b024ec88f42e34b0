import { notFound } from "../../errors.ts";
import type { FieldStore, RowLock } from "../../store/ports/field-store.ts";
import { type AuthContext, canSeeProject } from "../auth/auth-context.ts";

/*
 * Each lookup walks up to the owning project and answers 404 both when the row does not exist
 * and when its project is outside the caller's: existence is not revealed (CONTRIBUTING,
 * Authorisation).
 */

export async function visibleProject(field: FieldStore, auth: AuthContext, id: string) {
  const row = await field.project(id);
  if (!row || !canSeeProject(auth, row.id)) throw notFound("project");
  return row;
}

export async function visibleAsset(field: FieldStore, auth: AuthContext, id: string, lock?: RowLock) {
  const row = await field.asset(id, lock);
  if (!row || !canSeeProject(auth, row.projectId)) throw notFound("asset");
  return row;
}

export async function visibleDevice(field: FieldStore, auth: AuthContext, id: string, lock?: RowLock) {
  const found = await field.device(id, lock);
  if (!found || !canSeeProject(auth, found.projectId)) throw notFound("device");
  return found;
}

export async function visibleVariable(field: FieldStore, auth: AuthContext, id: string) {
  const found = await field.variable(id);
  if (!found || !canSeeProject(auth, found.projectId)) throw notFound("variable");
  return found;
}
