import { randomUUID } from "node:crypto";
import { and, eq } from "drizzle-orm";
import type { Payload } from "../../../shared/mqtt/topics.ts";
import { alarmEvents, alarms, alertRules, assets } from "../../store/sqlite/schema/index.ts";
import type { AlarmRow } from "../alarms/alarm-dto.ts";
import { publishAlarms } from "../alarms/publish.ts";
import type { ServiceContext } from "../context.ts";

type Transition = Payload<"telemetry">["alarms"][number];

/** What storeAgentAlarms changed, to announce once it is committed. */
export type StoredAgentAlarms = { raised: AlarmRow[]; cleared: AlarmRow[] };

/**
 * Stores alarm transitions the agent raised at the edge (it evaluated the same rules with the
 * shared evaluator, possibly while offline), inside the caller's transaction: the batch that
 * carries them commits them with its points (receive-batch.ts). The agent's alarm id is kept, so a
 * batch sent again changes nothing. Transitions for assets or rules outside the project are ignored.
 */
export function storeAgentAlarms(
  ctx: ServiceContext,
  projectId: string,
  transitions: readonly Transition[],
): StoredAgentAlarms {
  const raised: AlarmRow[] = [];
  const cleared: AlarmRow[] = [];
  for (const t of transitions) {
    const asset = ctx.db
      .select({ id: assets.id })
      .from(assets)
      .where(and(eq(assets.id, t.asset_id), eq(assets.projectId, projectId)))
      .get();
    if (!asset) continue;
    const rule = ctx.db
      .select({ id: alertRules.id })
      .from(alertRules)
      .where(and(eq(alertRules.id, t.rule_id), eq(alertRules.projectId, projectId)))
      .get();
    const at = new Date(t.at);
    const existing = ctx.db.select().from(alarms).where(eq(alarms.id, t.id)).get();
    if (t.event === "raised") {
      if (existing) continue;
      const row = ctx.db
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
      ctx.db
        .insert(alarmEvents)
        .values({ id: randomUUID(), alarmId: t.id, event: "raised", at, value: t.value })
        .run();
      raised.push(row);
    } else {
      if (!existing || existing.projectId !== projectId || !existing.active) continue;
      const row = ctx.db
        .update(alarms)
        .set({ active: false, returnedAt: at })
        .where(eq(alarms.id, t.id))
        .returning()
        .get();
      ctx.db
        .insert(alarmEvents)
        .values({ id: randomUUID(), alarmId: t.id, event: "cleared", at, value: t.value })
        .run();
      cleared.push(row);
    }
  }
  return { raised, cleared };
}

/** Announces what storeAgentAlarms stored, after the commit. */
export function publishAgentAlarms(ctx: ServiceContext, stored: StoredAgentAlarms): void {
  publishAlarms(ctx, "raised", stored.raised);
  publishAlarms(ctx, "cleared", stored.cleared);
}
