import { randomUUID } from "node:crypto";
import { appendAudit } from "../../store/sqlite/append-audit.ts";
import { alertRules } from "../../store/sqlite/schema/index.ts";
import { configChanged } from "../agents/config-changed.ts";
import type { AuthContext } from "../auth/auth-context.ts";
import type { ServiceContext } from "../context.ts";
import { alarmEngineOf } from "./engine-registry.ts";
import { type AlertRuleDto, toAlertRuleDto } from "./rule-dto.ts";
import { type AlertRuleInput, ruleColumns } from "./rule-input.ts";
import { assertVisibleProject } from "./visible.ts";

/** Creates a rule (404 for a project outside the caller's); it applies from the next reading on. */
export function createAlertRule(ctx: ServiceContext, auth: AuthContext, input: AlertRuleInput): AlertRuleDto {
  const now = ctx.clock.now();
  const dto = ctx.db.transaction((tx) => {
    assertVisibleProject(tx, auth, input.project_id);
    const row = tx
      .insert(alertRules)
      .values({
        id: randomUUID(),
        projectId: input.project_id,
        ...ruleColumns(input),
        createdAt: now,
        updatedAt: now,
      })
      .returning()
      .get();
    const created = toAlertRuleDto(row);
    appendAudit(tx, {
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
  alarmEngineOf(ctx)?.rulesChanged(dto.project_id);
  configChanged(ctx, dto.project_id);
  return dto;
}
