import type { AuthContext } from "../auth/auth-context.ts";
import type { ServiceContext } from "../context.ts";
import { type AlertRuleDto, toAlertRuleDto } from "./rule-dto.ts";
import { assertVisibleProject } from "./visible.ts";

/** A project's alert rules, enabled or not, oldest first. */
export async function listAlertRules(
  ctx: ServiceContext,
  auth: AuthContext,
  projectId: string,
): Promise<AlertRuleDto[]> {
  await assertVisibleProject(ctx.store.field, auth, projectId);
  return (await ctx.store.alarms.rulesOf(projectId)).map(toAlertRuleDto);
}
