import { randomUUID } from "node:crypto";
import { and, eq } from "drizzle-orm";
import type { Payload } from "../../../shared/mqtt/topics.ts";
import { alarmEvents, alarms, alertRules, assets } from "../../db/schema/index.ts";
import type { AlarmRow } from "../alarms/alarm-dto.ts";
import { publishAlarms } from "../alarms/publish.ts";
import type { ServiceContext } from "../context.ts";

type Transition = Payload<"telemetry">["alarms"][number];

/**
 * Records alarm transitions the agent raised at the edge (it evaluated the same rules with the
 * shared evaluator, possibly while offline). The agent's alarm id is kept, so a batch sent again
 * changes nothing. Transitions for assets or rules outside the project are ignored.
 */
export function recordAgentAlarms(
  ctx: ServiceContext,
  projectId: string,
  transitions: readonly Transition[],
): number {
  if (transitions.length === 0) return 0;
  const raised: AlarmRow[] = [];
  const cleared: AlarmRow[] = [];
  ctx.db.transaction((tx) => {
    for (const t of transitions) {
      const asset = tx
        .select({ id: assets.id })
        .from(assets)
        .where(and(eq(assets.id, t.asset_id), eq(assets.projectId, projectId)))
        .get();
      if (!asset) continue;
      const rule = tx
        .select({ id: alertRules.id })
        .from(alertRules)
        .where(and(eq(alertRules.id, t.rule_id), eq(alertRules.projectId, projectId)))
        .get();
      const at = new Date(t.at);
      const existing = tx.select().from(alarms).where(eq(alarms.id, t.id)).get();
      if (t.event === "raised") {
        if (existing) continue;
        const row = tx
          .insert(alarms)
          .values({
            id: t.id,
            projectId,
            assetId: t.asset_id,
            ruleId: rule?.id ?? null,
            variable: t.variable,
            value: t.value,
            alarmType: t.alarm_type,
            severity: t.severity,
            message: t.message,
            timestamp: at,
            active: true,
            source: "agent",
            createdAt: ctx.clock.now(),
          })
          .returning()
          .get();
        tx.insert(alarmEvents)
          .values({ id: randomUUID(), alarmId: t.id, event: "raised", at, value: t.value })
          .run();
        raised.push(row);
      } else {
        if (!existing || existing.projectId !== projectId || !existing.active) continue;
        const row = tx
          .update(alarms)
          .set({ active: false, returnedAt: at })
          .where(eq(alarms.id, t.id))
          .returning()
          .get();
        tx.insert(alarmEvents)
          .values({ id: randomUUID(), alarmId: t.id, event: "cleared", at, value: t.value })
          .run();
        cleared.push(row);
      }
    }
  });
  publishAlarms(ctx, "raised", raised);
  publishAlarms(ctx, "cleared", cleared);
  return raised.length + cleared.length;
}
