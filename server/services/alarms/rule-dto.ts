import { ruleRedefined } from "../../../shared/alarms/rule.ts";
import type { AlertRuleRow } from "../../store/rows.ts";

export type { AlertRuleRow };

/** Spec §2 AlertRule, plus the deadband / delay_seconds extensions and updated_at. */
export type AlertRuleDto = {
  id: string;
  project_id: string;
  name: string;
  variable_alias: string;
  condition: AlertRuleRow["condition"];
  threshold: number;
  severity: AlertRuleRow["severity"];
  is_enabled: boolean;
  deadband: number;
  delay_seconds: number;
  created_at: string;
  updated_at: string;
};

export function toAlertRuleDto(row: AlertRuleRow): AlertRuleDto {
  return {
    id: row.id,
    project_id: row.projectId,
    name: row.name,
    variable_alias: row.variableAlias,
    condition: row.condition,
    threshold: row.threshold,
    severity: row.severity,
    is_enabled: row.isEnabled,
    deadband: row.deadband,
    delay_seconds: row.delaySeconds,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** The fields that decide when an alarm is raised or returns: changing any of them redefines the alarm. */
export function evaluationChanged(before: AlertRuleRow, after: AlertRuleRow): boolean {
  return before.isEnabled !== after.isEnabled || ruleRedefined(evaluated(before), evaluated(after));
}

function evaluated(r: AlertRuleRow) {
  return {
    variable_alias: r.variableAlias,
    condition: r.condition,
    threshold: r.threshold,
    severity: r.severity,
    deadband: r.deadband,
    delay_seconds: r.delaySeconds,
  };
}
