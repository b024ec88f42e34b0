import { randomUUID } from "node:crypto";
import type { Transition } from "../../../shared/alarms/evaluator.ts";
import { ruleAlarmMessage } from "../../../shared/alarms/message.ts";
import type { Store } from "../../store/store.ts";
import type { AlarmRow } from "./alarm-dto.ts";
import type { CompiledRule } from "./rule-cache.ts";

export type RuleTransition = {
  rule: CompiledRule;
  assetId: string;
  variable: string;
  transition: Transition;
};

export type PersistedTransitions = { raised: AlarmRow[]; cleared: AlarmRow[] };

/**
 * Stores the transitions of one telemetry event in one transaction, in order: a raise inserts the
 * alarm and its "raised" history row; a return marks the (rule, asset)'s active alarms returned and
 * adds a "cleared" row for each. Times are the readings' own.
 */
export function persistRuleTransitions(
  store: Store,
  transitions: readonly RuleTransition[],
  now: Date,
): Promise<PersistedTransitions> {
  return store.transaction(async (tx) => {
    const out: PersistedTransitions = { raised: [], cleared: [] };
    for (const { rule, assetId, variable, transition } of transitions) {
      const at = new Date(transition.at);
      if (transition.kind === "raise") {
        const row = await tx.alarms.raise({
          id: randomUUID(),
          projectId: rule.projectId,
          assetId,
          ruleId: rule.id,
          variable,
          value: transition.value,
          alarmType: transition.alarmType,
          severity: rule.severity,
          message: ruleAlarmMessage(rule, transition.value),
          timestamp: at,
          source: "server",
          createdAt: now,
        });
        out.raised.push(row);
      } else {
        const rows = await tx.alarms.returnToNormal(
          { ruleId: rule.id, assetId },
          { at, value: transition.value, userId: null },
        );
        out.cleared.push(...rows);
      }
    }
    return out;
  });
}
