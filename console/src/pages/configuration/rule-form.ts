import type { AlertRule, Severity } from "../../api/types.ts";
import { type FieldSpec, type FormValues, inputValue } from "../../forms/form-body.ts";
import type { I18n } from "../../i18n/i18n.ts";
import { CONDITIONS } from "./choices.ts";

const SEVERITIES: Severity[] = ["critical", "warning", "info"];

/** The inputs of an alert rule (the page adds the project's id to the body). */
export function ruleSpecs(i18n: I18n): readonly FieldSpec[] {
  return [
    { name: "name", label: "config.rule.name", kind: "text" },
    { name: "variable_alias", label: "config.rule.variable", kind: "text", help: "config.rule.variableHelp" },
    { name: "condition", label: "config.rule.condition", kind: "select", options: CONDITIONS },
    { name: "threshold", label: "config.rule.threshold", kind: "number" },
    {
      name: "severity",
      label: "config.rule.severity",
      kind: "select",
      options: SEVERITIES.map((s) => [s, i18n.t(`severity.${s}`)] as const),
    },
    { name: "deadband", label: "config.rule.deadband", kind: "number", help: "config.rule.deadbandHelp" },
    { name: "delay_seconds", label: "config.rule.delay", kind: "number", help: "config.rule.delayHelp" },
    { name: "is_enabled", label: "config.enabled", kind: "checkbox" },
  ];
}

export function newRuleValues(): FormValues {
  return { condition: "gt", severity: "warning", is_enabled: true };
}

export function ruleValues(rule: AlertRule): FormValues {
  return {
    name: rule.name,
    variable_alias: rule.variable_alias,
    condition: rule.condition,
    threshold: inputValue(rule.threshold),
    severity: rule.severity,
    deadband: inputValue(rule.deadband),
    delay_seconds: inputValue(rule.delay_seconds),
    is_enabled: rule.is_enabled,
  };
}
