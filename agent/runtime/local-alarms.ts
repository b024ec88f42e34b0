import { randomUUID } from "node:crypto";
import { evaluate, INITIAL_STATE, type RuleState } from "../../shared/alarms/evaluator.ts";
import { ruleAlarmMessage } from "../../shared/alarms/message.ts";
import { ruleRedefined } from "../../shared/alarms/rule.ts";
import type { AgentRule } from "../../shared/mqtt/agent-config.ts";
import type { AgentStore, LocalAlarm } from "../store/agent-store.ts";
import type { AlarmTransition } from "../store/outbox.ts";

const NO_TRANSITIONS: readonly AlarmTransition[] = Object.freeze([]);

/**
 * Evaluates the deployed alert rules at the edge with the shared evaluator, so a site with no
 * WAN still raises (and later syncs) its alarms. State is rebuilt from the local store on start.
 */
export class LocalAlarms {
  readonly #store: AgentStore;
  #rulesByAlias = new Map<string, AgentRule[]>();
  #rulesById = new Map<string, AgentRule>();
  readonly #state = new Map<string, { state: RuleState; alarmId: string | null }>();

  constructor(store: AgentStore) {
    this.#store = store;
  }

  /**
   * Runs a new rule set (a deployment, or the stored one at start). Active alarms of rules that
   * are unchanged stay active. Those of rules removed (deleted or disabled on the server) or
   * redefined (shared ruleRedefined) return to normal, and the returned `cleared` transitions must
   * be synced: the agent raised these alarms, so only the agent clears them, and the server
   * records it (README, "Who clears an alarm"). Nothing held by an old definition is raised again.
   */
  setRules(rules: readonly AgentRule[], now: number): AlarmTransition[] {
    const previous = this.#rulesById;
    this.#rulesById = new Map(rules.map((r) => [r.id, r]));
    this.#rulesByAlias = new Map();
    for (const r of rules) {
      const list = this.#rulesByAlias.get(r.variable_alias) ?? [];
      list.push(r);
      this.#rulesByAlias.set(r.variable_alias, list);
    }
    this.#state.clear();
    const cleared: AlarmTransition[] = [];
    for (const a of this.#store.localAlarms(now)) {
      if (a.returned_at !== null) continue;
      const rule = this.#rulesById.get(a.rule_id);
      // At start there is no previous set: the stored configuration is the one that raised them.
      const before = previous.get(a.rule_id);
      if (rule && !(before && ruleRedefined(before, rule))) {
        this.#state.set(`${a.rule_id}|${a.asset_id}`, {
          state: { phase: "active", raisedAt: a.raised_at, lastTs: a.raised_at },
          alarmId: a.id,
        });
      } else {
        this.#store.upsertLocalAlarm({ ...a, returned_at: now });
        cleared.push(toTransition(a, "cleared", now));
      }
    }
    return cleared;
  }

  /** Evaluates one good reading; returns the transitions to sync. */
  observe(assetId: string, variable: string, value: number, ts: number): readonly AlarmTransition[] {
    const rules = this.#rulesByAlias.get(variable);
    // Most variables have no rule: no array for them, on every poll.
    if (!rules) return NO_TRANSITIONS;
    const out: AlarmTransition[] = [];
    for (const rule of rules) {
      const key = `${rule.id}|${assetId}`;
      const current = this.#state.get(key) ?? { state: INITIAL_STATE, alarmId: null };
      const { state, transition } = evaluate(rule, current.state, { value, ts });
      let alarmId = current.alarmId;
      if (transition?.kind === "raise") {
        alarmId = randomUUID();
        const alarm: LocalAlarm = {
          id: alarmId,
          rule_id: rule.id,
          asset_id: assetId,
          variable,
          value,
          alarm_type: transition.alarmType,
          severity: rule.severity,
          message: ruleAlarmMessage(rule, value),
          raised_at: ts,
          returned_at: null,
        };
        this.#store.upsertLocalAlarm(alarm);
        out.push({ ...toTransition(alarm, "raised", ts), alarm_type: transition.alarmType });
      } else if (transition?.kind === "return" && alarmId) {
        const alarm = this.#store.localAlarms(ts).find((a) => a.id === alarmId);
        if (alarm) {
          this.#store.upsertLocalAlarm({ ...alarm, value, returned_at: ts });
          out.push(toTransition({ ...alarm, value }, "cleared", ts));
        }
        alarmId = null;
      }
      this.#state.set(key, { state, alarmId });
    }
    return out;
  }
}

function toTransition(a: LocalAlarm, event: "raised" | "cleared", at: number): AlarmTransition {
  return {
    id: a.id,
    event,
    rule_id: a.rule_id,
    asset_id: a.asset_id,
    variable: a.variable,
    value: a.value,
    alarm_type: a.alarm_type as AlarmTransition["alarm_type"],
    severity: a.severity as AlarmTransition["severity"],
    message: a.message,
    at,
  };
}
