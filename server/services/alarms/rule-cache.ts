import type { RuleState } from "../../../shared/alarms/evaluator.ts";
import type { EvaluatorRule } from "../../../shared/alarms/rule.ts";
import type { AlarmStore } from "../../store/ports/alarm-store.ts";

/** An enabled rule as the hot path needs it: the evaluator's fields plus what a raise records. */
export type CompiledRule = EvaluatorRule & {
  id: string;
  projectId: string;
  name: string;
  variable_alias: string;
};

/** A rule with the evaluator state of each asset that reports its variable. */
export type RuleSlot = { rule: CompiledRule; states: Map<string, RuleState> };

/** One project's enabled rules keyed by variable alias: one map lookup per reading. */
export type ProjectRules = ReadonlyMap<string, readonly RuleSlot[]>;

export async function loadEnabledRules(store: AlarmStore, projectId: string): Promise<CompiledRule[]> {
  return (await store.enabledRulesOf(projectId)).map((r) => ({
    id: r.id,
    projectId: r.projectId,
    name: r.name,
    variable_alias: r.variableAlias,
    condition: r.condition,
    threshold: r.threshold,
    severity: r.severity,
    deadband: r.deadband,
    delay_seconds: r.delaySeconds,
  }));
}
