import type { Payload } from "../../../shared/mqtt/topics.ts";
import type { StorePorts } from "../../store/store.ts";
import type { AlarmRow } from "../alarms/alarm-dto.ts";
import { publishAlarms } from "../alarms/publish.ts";
import type { ServiceContext } from "../context.ts";

type Transition = Payload<"telemetry">["alarms"][number];

/** What storeAgentAlarms changed, to announce once it is committed. */
export type StoredAgentAlarms = { raised: AlarmRow[]; cleared: AlarmRow[] };

/**
 * Stores alarm transitions the agent raised at the edge (it evaluated the same rules with the
 * shared evaluator, possibly while offline), through the ports of the caller's transaction: the
 * batch that carries them commits them with its points (receive-batch.ts). The agent's alarm id is
 * kept, so a batch sent again changes nothing. Transitions for assets or rules outside the project
 * are ignored. `now`: the alarms' created_at.
 */
export async function storeAgentAlarms(
  tx: StorePorts,
  now: Date,
  projectId: string,
  transitions: readonly Transition[],
): Promise<StoredAgentAlarms> {
  const raised: AlarmRow[] = [];
  const cleared: AlarmRow[] = [];
  for (const t of transitions) {
    const asset = await tx.field.asset(t.asset_id);
    if (asset?.projectId !== projectId) continue;
    const rule = await tx.alarms.rule(t.rule_id);
    const at = new Date(t.at);
    const existing = await tx.alarms.alarm(t.id);
    if (t.event === "raised") {
      if (existing) continue;
      raised.push(
        await tx.alarms.raise({
          id: t.id,
          projectId,
          assetId: t.asset_id,
          ruleId: rule?.projectId === projectId ? rule.id : null,
          variable: t.variable,
          value: t.value,
          alarmType: t.alarm_type,
          severity: t.severity,
          message: t.message,
          timestamp: at,
          source: "agent",
          createdAt: now,
        }),
      );
    } else {
      if (!existing || existing.projectId !== projectId || !existing.active) continue;
      cleared.push(
        ...(await tx.alarms.returnToNormal({ alarmId: t.id }, { at, value: t.value, userId: null })),
      );
    }
  }
  return { raised, cleared };
}

/** Announces what storeAgentAlarms stored, after the commit. */
export function publishAgentAlarms(ctx: ServiceContext, stored: StoredAgentAlarms): void {
  publishAlarms(ctx, "raised", stored.raised);
  publishAlarms(ctx, "cleared", stored.cleared);
}
