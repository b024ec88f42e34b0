import { asc, eq } from "drizzle-orm";
import { alertRules } from "../../store/sqlite/schema/index.ts";
import type { AuthContext } from "../auth/auth-context.ts";
import type { ServiceContext } from "../context.ts";
import { type AlertRuleDto, toAlertRuleDto } from "./rule-dto.ts";
import { assertVisibleProject } from "./visible.ts";

/** A project's alert rules, enabled or not, oldest first. */
export function listAlertRules(ctx: ServiceContext, auth: AuthContext, projectId: string): AlertRuleDto[] {
  assertVisibleProject(ctx.db, auth, projectId);
  return ctx.db
    .select()
    .from(alertRules)
    .where(eq(alertRules.projectId, projectId))
    .orderBy(asc(alertRules.createdAt), asc(alertRules.id))
    .all()
    .map(toAlertRuleDto);
}
