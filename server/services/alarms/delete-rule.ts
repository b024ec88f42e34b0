import { eq } from "drizzle-orm";
import { appendAudit } from "../../store/sqlite/append-audit.ts";
import { alertRules } from "../../store/sqlite/schema/index.ts";
import { configChanged } from "../agents/config-changed.ts";
import type { AuthContext } from "../auth/auth-context.ts";
import type { ServiceContext } from "../context.ts";
import { alarmEngineOf } from "./engine-registry.ts";
import { publishAlarms } from "./publish.ts";
import { returnRuleAlarms } from "./return-rule-alarms.ts";
import { toAlertRuleDto } from "./rule-dto.ts";
import { visibleRule } from "./visible.ts";

/**
 * Deletes a rule. Its active server-raised alarms return to normal first (the agent's, when it
 * applies the deployment without the rule: returnRuleAlarms); every alarm it raised keeps its row
 * and history, with rule_id set to null by the foreign key (alarm history is never deleted).
 */
export function deleteAlertRule(ctx: ServiceContext, auth: AuthContext, id: string): void {
  const now = ctx.clock.now();
  const { projectId, returned } = ctx.db.transaction((tx) => {
    const before = visibleRule(tx, auth, id);
    const returned = returnRuleAlarms(tx, id, now, auth.userId);
    tx.delete(alertRules).where(eq(alertRules.id, id)).run();
    appendAudit(tx, {
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
  alarmEngineOf(ctx)?.rulesChanged(projectId, id);
  configChanged(ctx, projectId);
  publishAlarms(ctx, "cleared", returned);
}
