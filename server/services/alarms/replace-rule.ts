import { badRequest, notFound } from "../../errors.ts";
import { configChanged } from "../agents/config-changed.ts";
import type { AuthContext } from "../auth/auth-context.ts";
import type { ServiceContext } from "../context.ts";
import { publishAlarms } from "./publish.ts";
import { returnRuleAlarms } from "./return-rule-alarms.ts";
import { type AlertRuleDto, evaluationChanged, toAlertRuleDto } from "./rule-dto.ts";
import { type AlertRuleInput, ruleColumns } from "./rule-input.ts";
import type { RuleChangeListener } from "./rule-listener.ts";
import { visibleRule } from "./visible.ts";

/**
 * PUT: replaces every field (omitted optional ones reset to their defaults). When the rule is
 * redefined (variable, condition, threshold, severity, deadband, delay or enabled flag changed) its
 * active alarms return to normal, in the same transaction: they were raised under a definition
 * that no longer exists. Evaluation restarts from normal, so a condition that still holds raises a
 * fresh alarm on the next reading. A rename keeps them.
 */
export async function replaceAlertRule(
  ctx: ServiceContext,
  engine: RuleChangeListener | undefined,
  auth: AuthContext,
  id: string,
  input: AlertRuleInput,
): Promise<AlertRuleDto> {
  const now = ctx.clock.now();
  const { dto, returned, redefined } = await ctx.store.transaction(async (tx) => {
    const before = await visibleRule(tx.alarms, auth, id);
    if (input.project_id !== before.projectId) {
      throw badRequest("project_id: must be the rule's own project (a rule cannot move to another project)");
    }
    const row = await tx.alarms.updateRule(id, { ...ruleColumns(input), updatedAt: now });
    if (!row) throw notFound("alert rule");
    const redefined = evaluationChanged(before, row);
    const returned = redefined ? await returnRuleAlarms(tx.alarms, id, now, auth.userId) : [];
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
    return { dto, returned, redefined };
  });
  engine?.rulesChanged(dto.project_id, redefined ? id : undefined);
  configChanged(ctx, dto.project_id);
  publishAlarms(ctx, "cleared", returned);
  return dto;
}
