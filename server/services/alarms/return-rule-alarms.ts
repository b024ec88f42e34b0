import { randomUUID } from "node:crypto";
import { and, eq } from "drizzle-orm";
import type { DbOrTx } from "../../store/sqlite/append-audit.ts";
import { alarmEvents, alarms } from "../../store/sqlite/schema/index.ts";
import type { AlarmRow } from "./alarm-dto.ts";

/**
 * Returns a rule's active alarms to normal because the rule itself changed (disabled, redefined
 * or deleted), inside the caller's transaction. Each return is kept in alarm_events with the user
 * who changed the rule; the alarms stay listed until acknowledged (ISA-18.2).
 *
 * Only the alarms the server raised (source "server"): whoever raises an alarm clears it. An
 * alarm the agent raised stays active until the agent, applying the deployment that carries the
 * change, returns it to normal and syncs that (agent/runtime/local-alarms.ts); clearing it here
 * would leave the agent, still on the old configuration, holding an alarm the server had closed.
 */
export function returnRuleAlarms(tx: DbOrTx, ruleId: string, at: Date, userId: string): AlarmRow[] {
  const rows = tx
    .update(alarms)
    .set({ active: false, returnedAt: at })
    .where(and(eq(alarms.ruleId, ruleId), eq(alarms.active, true), eq(alarms.source, "server")))
    .returning()
    .all();
  for (const row of rows) {
    tx.insert(alarmEvents)
      .values({ id: randomUUID(), alarmId: row.id, event: "cleared", at, value: null, userId })
      .run();
  }
  return rows;
}
