import { randomUUID } from "node:crypto";
import { configChanged } from "../agents/config-changed.ts";
import type { AuthContext } from "../auth/auth-context.ts";
import type { ServiceContext } from "../context.ts";
import { type AlertRuleDto, toAlertRuleDto } from "./rule-dto.ts";
import { type AlertRuleInput, ruleColumns } from "./rule-input.ts";
import type { RuleChangeListener } from "./rule-listener.ts";
import { assertVisibleProject } from "./visible.ts";

/** Creates a rule (404 for a project outside the caller's); it applies from the next reading on. */
export async function createAlertRule(
  ctx: ServiceContext,
  engine: RuleChangeListener | undefined,
  auth: AuthContext,
  input: AlertRuleInput,
): Promise<AlertRuleDto> {
  const now = ctx.clock.now();
  const dto = await ctx.store.transaction(async (tx) => {
    await assertVisibleProject(tx.field, auth, input.project_id);
    const row = await tx.alarms.insertRule({
      id: randomUUID(),
      projectId: input.project_id,
      ...ruleColumns(input),
      createdAt: now,
      updatedAt: now,
    });
    const created = toAlertRuleDto(row);
    await tx.audit.append({
      at: now,
      userId: auth.userId,
      projectId: row.projectId,
      entity: "alert_rule",
      entityId: row.id,
      action: "create",
      before: null,
      after: created,
    });
    return created;
  });
  engine?.rulesChanged(dto.project_id);
  configChanged(ctx, dto.project_id);
  return dto;
}
