import { randomUUID } from "node:crypto";
import { and, eq } from "drizzle-orm";
import type { Transition } from "../../../shared/alarms/evaluator.ts";
import { ruleAlarmMessage } from "../../../shared/alarms/message.ts";
import type { Db } from "../../store/sqlite/client.ts";
import { alarmEvents, alarms } from "../../store/sqlite/schema/index.ts";
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
 * Stores the transitions of one telemetry event in one transaction: a raise inserts the alarm and
 * its "raised" history row; a return marks the (rule, asset)'s active alarm returned and adds a
 * "cleared" row. Times are the readings' own.
 */
export function persistRuleTransitions(
  db: Db,
  transitions: readonly RuleTransition[],
  now: Date,
): PersistedTransitions {
  return db.transaction((tx) => {
    const out: PersistedTransitions = { raised: [], cleared: [] };
    for (const { rule, assetId, variable, transition } of transitions) {
      const at = new Date(transition.at);
      if (transition.kind === "raise") {
        const row = tx
          .insert(alarms)
          .values({
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
          })
          .returning()
          .get();
        tx.insert(alarmEvents)
          .values({ id: randomUUID(), alarmId: row.id, event: "raised", at, value: transition.value })
          .run();
        out.raised.push(row);
      } else {
        const rows = tx
          .update(alarms)
          .set({ active: false, returnedAt: at })
          .where(and(eq(alarms.ruleId, rule.id), eq(alarms.assetId, assetId), eq(alarms.active, true)))
          .returning()
          .all();
        for (const row of rows) {
          tx.insert(alarmEvents)
            .values({ id: randomUUID(), alarmId: row.id, event: "cleared", at, value: transition.value })
            .run();
          out.cleared.push(row);
        }
      }
    }
    return out;
  });
}
