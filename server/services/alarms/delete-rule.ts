import { notFound } from "../../errors.ts";
import { configChanged } from "../agents/config-changed.ts";
import type { AuthContext } from "../auth/auth-context.ts";
import type { ServiceContext } from "../context.ts";
import { publishAlarms } from "./publish.ts";
import { returnRuleAlarms } from "./return-rule-alarms.ts";
import { toAlertRuleDto } from "./rule-dto.ts";
import type { RuleChangeListener } from "./rule-listener.ts";
import { visibleRule } from "./visible.ts";

/**
 * Deletes a rule. Its active server-raised alarms return to normal first (the agent's, when it
 * applies the deployment without the rule: returnRuleAlarms); every alarm it raised keeps its row
 * and history, with rule_id set to null by the foreign key (alarm history is never deleted).
 */
export async function deleteAlertRule(
  ctx: ServiceContext,
  engine: RuleChangeListener | undefined,
  auth: AuthContext,
  id: string,
): Promise<void> {
  const now = ctx.clock.now();
  const { projectId, returned } = await ctx.store.transaction(async (tx) => {
    const before = await visibleRule(tx.alarms, auth, id);
    const returned = await returnRuleAlarms(tx.alarms, id, now, auth.userId);
    // Read above, but a concurrent delete may have taken it since: then this one is a 404.
    if (!(await tx.alarms.deleteRule(id))) throw notFound("alert rule");
    await tx.audit.append({
      at: now,
      userId: auth.userId,
      projectId: before.projectId,
      entity: "alert_rule",
      entityId: id,
      action: "delete",
      before: toAlertRuleDto(before),
      after: null,
    });
    // The rows as they now are: returned to normal and no longer tied to the deleted rule.
    return { projectId: before.projectId, returned: returned.map((r) => ({ ...r, ruleId: null })) };
  });
  engine?.rulesChanged(projectId, id);
  configChanged(ctx, projectId);
  publishAlarms(ctx, "cleared", returned);
}
