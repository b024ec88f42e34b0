import { eq } from "drizzle-orm";
import { notFound } from "../../errors.ts";
import type { DbOrTx } from "../../store/sqlite/append-audit.ts";
import { alarms, alertRules, projects } from "../../store/sqlite/schema/index.ts";
import { type AuthContext, assertProjectVisible, canSeeProject } from "../auth/auth-context.ts";

/*
 * Lookups answer 404 both for rows that do not exist and for rows of another project: existence
 * is not revealed (CONTRIBUTING, Authorisation).
 */

export function assertVisibleProject(db: DbOrTx, auth: AuthContext, projectId: string): void {
  assertProjectVisible(auth, projectId);
  if (!db.select({ id: projects.id }).from(projects).where(eq(projects.id, projectId)).get()) {
    throw notFound("project");
  }
}

export function visibleRule(db: DbOrTx, auth: AuthContext, id: string) {
  const row = db.select().from(alertRules).where(eq(alertRules.id, id)).get();
  if (!row || !canSeeProject(auth, row.projectId)) throw notFound("alert rule");
  return row;
}

export function visibleAlarm(db: DbOrTx, auth: AuthContext, id: string) {
  const row = db.select().from(alarms).where(eq(alarms.id, id)).get();
  if (!row || !canSeeProject(auth, row.projectId)) throw notFound("alarm");
  return row;
}
