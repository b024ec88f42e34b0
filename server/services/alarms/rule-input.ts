import type { AlarmCondition, AlarmSeverity } from "../../../shared/alarms/rule.ts";

/** CreateAlertRuleRequest after validation (spec §2), with the deadband / delay extensions. */
export type AlertRuleInput = {
  project_id: string;
  name: string;
  variable_alias: string;
  condition: AlarmCondition;
  threshold: number;
  severity: AlarmSeverity;
  deadband?: number | undefined;
  delay_seconds?: number | undefined;
  is_enabled?: boolean | undefined;
};

/** Column values of an input; omitted optional fields take their defaults (PUT replaces). */
export function ruleColumns(input: AlertRuleInput) {
  return {
    name: input.name,
    variableAlias: input.variable_alias,
    condition: input.condition,
    threshold: input.threshold,
    severity: input.severity,
    deadband: input.deadband ?? 0,
    delaySeconds: input.delay_seconds ?? 0,
    isEnabled: input.is_enabled ?? true,
  };
}
