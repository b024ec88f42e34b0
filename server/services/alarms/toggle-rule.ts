import { eq } from "drizzle-orm";
import { appendAudit } from "../../store/sqlite/append-audit.ts";
import { alertRules } from "../../store/sqlite/schema/index.ts";
import { configChanged } from "../agents/config-changed.ts";
import type { AuthContext } from "../auth/auth-context.ts";
import type { ServiceContext } from "../context.ts";
import { alarmEngineOf } from "./engine-registry.ts";
import { publishAlarms } from "./publish.ts";
import { returnRuleAlarms } from "./return-rule-alarms.ts";
import { type AlertRuleDto, toAlertRuleDto } from "./rule-dto.ts";
import { visibleRule } from "./visible.ts";

/**
 * Spec §3: PATCH /alert-rules/{id}/toggle flips is_enabled. Disabling returns the rule's active
 * server-raised alarms to normal in the same transaction (a disabled rule raises nothing and holds
 * nothing); the agent's return when it applies the deployment (returnRuleAlarms). Enabling starts
 * evaluation from normal.
 */
export function toggleAlertRule(ctx: ServiceContext, auth: AuthContext, id: string): AlertRuleDto {
  const now = ctx.clock.now();
  const { dto, returned } = ctx.db.transaction((tx) => {
    const before = visibleRule(tx, auth, id);
    const row = tx
      .update(alertRules)
      .set({ isEnabled: !before.isEnabled, updatedAt: now })
      .where(eq(alertRules.id, id))
      .returning()
      .get();
    const returned = row.isEnabled ? [] : returnRuleAlarms(tx, id, now, auth.userId);
    const dto = toAlertRuleDto(row);
    appendAudit(tx, {
      at: now,
      userId: auth.userId,
      projectId: row.projectId,
      entity: "alert_rule",
      entityId: id,
      action: "update",
      before: toAlertRuleDto(before),
      after: dto,
    });
    return { dto, returned };
  });
  alarmEngineOf(ctx)?.rulesChanged(dto.project_id, id);
  configChanged(ctx, dto.project_id);
  publishAlarms(ctx, "cleared", returned);
  return dto;
}
