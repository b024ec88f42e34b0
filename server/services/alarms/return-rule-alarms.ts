import type { AlarmStore } from "../../store/ports/alarm-store.ts";
import type { AlarmRow } from "./alarm-dto.ts";

/**
 * Returns a rule's active alarms to normal because the rule itself changed (disabled, redefined
 * or deleted); call it with the ports of the transaction that changes the rule. Each return is kept
 * in alarm_events with the user who changed the rule; the alarms stay listed until acknowledged
 * (ISA-18.2).
 *
 * Only the alarms the server raised (source "server"): whoever raises an alarm clears it. An
 * alarm the agent raised stays active until the agent, applying the deployment that carries the
 * change, returns it to normal and syncs that (agent/runtime/local-alarms.ts); clearing it here
 * would leave the agent, still on the old configuration, holding an alarm the server had closed.
 */
export function returnRuleAlarms(
  store: AlarmStore,
  ruleId: string,
  at: Date,
  userId: string,
): Promise<AlarmRow[]> {
  return store.returnToNormal({ ruleId, source: "server" }, { at, value: null, userId });
}
