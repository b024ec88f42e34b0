import { z } from "zod";

/** Spec §2, AlertRule.condition. */
export const ALARM_CONDITIONS = ["gt", "lt", "gte", "lte", "eq"] as const;
export const alarmConditionSchema = z.enum(ALARM_CONDITIONS);
export type AlarmCondition = z.infer<typeof alarmConditionSchema>;

/** Spec §2, AlertRule.severity. */
export const ALARM_SEVERITIES = ["info", "warning", "critical"] as const;
export const alarmSeveritySchema = z.enum(ALARM_SEVERITIES);
export type AlarmSeverity = z.infer<typeof alarmSeveritySchema>;

/** Spec §2, AlarmEvent.alarm_type. */
export const ALARM_TYPES = ["high", "low", "critical_high", "critical_low", "comm_loss"] as const;
export const alarmTypeSchema = z.enum(ALARM_TYPES);
export type AlarmType = z.infer<typeof alarmTypeSchema>;

/** The alarm types a threshold rule can raise (comm_loss comes from silence, not from a rule). */
export type RuleAlarmType = Exclude<AlarmType, "comm_loss">;

/**
 * What the evaluator needs of a rule. Field names follow the API (snake_case), so the agent's
 * deployed rules (shared/mqtt/agent-config.ts, AgentRule) can be passed as they are.
 */
export type EvaluatorRule = {
  condition: AlarmCondition;
  threshold: number;
  severity: AlarmSeverity;
  /** Hysteresis (≥ 0) the value must cross, beyond the threshold, to return to normal. */
  deadband: number;
  /** How long (s, ≥ 0, on reading timestamps) the condition must hold before the alarm is raised. */
  delay_seconds: number;
};

/**
 * Whether a rule was redefined: a change to what it evaluates. Its active alarms were raised under
 * a definition that no longer exists, so they return to normal and evaluation restarts (a
 * condition that still holds raises a fresh alarm). A rename is not a redefinition. The server
 * (services/alarms/replace-rule.ts) and the agent (runtime/local-alarms.ts) apply the same rule.
 */
export function ruleRedefined(
  before: EvaluatorRule & { variable_alias: string },
  after: EvaluatorRule & { variable_alias: string },
): boolean {
  return (
    before.variable_alias !== after.variable_alias ||
    before.condition !== after.condition ||
    before.threshold !== after.threshold ||
    before.severity !== after.severity ||
    before.deadband !== after.deadband ||
    before.delay_seconds !== after.delay_seconds
  );
}

/** The comparison symbol of a condition, for messages. */
export const CONDITION_SYMBOLS: Record<AlarmCondition, string> = {
  gt: ">",
  gte: ">=",
  lt: "<",
  lte: "<=",
  eq: "=",
};
