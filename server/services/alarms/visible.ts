import { notFound } from "../../errors.ts";
import type { AlarmStore } from "../../store/ports/alarm-store.ts";
import type { FieldStore } from "../../store/ports/field-store.ts";
import { type AuthContext, assertProjectVisible, canSeeProject } from "../auth/auth-context.ts";

/*
 * Lookups answer 404 both for rows that do not exist and for rows of another project: existence
 * is not revealed (CONTRIBUTING, Authorisation).
 */

export async function assertVisibleProject(field: FieldStore, auth: AuthContext, projectId: string) {
  assertProjectVisible(auth, projectId);
  if (!(await field.project(projectId))) throw notFound("project");
}

export async function visibleRule(store: AlarmStore, auth: AuthContext, id: string) {
  const row = await store.rule(id);
  if (!row || !canSeeProject(auth, row.projectId)) throw notFound("alert rule");
  return row;
}

export async function visibleAlarm(store: AlarmStore, auth: AuthContext, id: string) {
  const row = await store.alarm(id);
  if (!row || !canSeeProject(auth, row.projectId)) throw notFound("alarm");
  return row;
}
