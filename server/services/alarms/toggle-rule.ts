import { notFound } from "../../errors.ts";
import { configChanged } from "../agents/config-changed.ts";
import type { AuthContext } from "../auth/auth-context.ts";
import type { ServiceContext } from "../context.ts";
import { publishAlarms } from "./publish.ts";
import { returnRuleAlarms } from "./return-rule-alarms.ts";
import { type AlertRuleDto, toAlertRuleDto } from "./rule-dto.ts";
import type { RuleChangeListener } from "./rule-listener.ts";
import { visibleRule } from "./visible.ts";

/**
 * Spec §3: PATCH /alert-rules/{id}/toggle flips is_enabled. Disabling returns the rule's active
 * server-raised alarms to normal in the same transaction (a disabled rule raises nothing and holds
 * nothing); the agent's return when it applies the deployment (returnRuleAlarms). Enabling starts
 * evaluation from normal.
 */
export async function toggleAlertRule(
  ctx: ServiceContext,
  engine: RuleChangeListener | undefined,
  auth: AuthContext,
  id: string,
): Promise<AlertRuleDto> {
  const now = ctx.clock.now();
  const { dto, returned } = await ctx.store.transaction(async (tx) => {
    const before = await visibleRule(tx.alarms, auth, id);
    const row = await tx.alarms.updateRule(id, { isEnabled: !before.isEnabled, updatedAt: now });
    if (!row) throw notFound("alert rule");
    const returned = row.isEnabled ? [] : await returnRuleAlarms(tx.alarms, id, now, auth.userId);
    const dto = toAlertRuleDto(row);
    await tx.audit.append({
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
  engine?.rulesChanged(dto.project_id, id);
  configChanged(ctx, dto.project_id);
  publishAlarms(ctx, "cleared", returned);
  return dto;
}
