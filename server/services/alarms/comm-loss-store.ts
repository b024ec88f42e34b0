import { randomUUID } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { COMM_LOSS_SEVERITY, COMM_LOSS_VARIABLE } from "../../../shared/alarms/comm-loss.ts";
import { commLossMessage } from "../../../shared/alarms/message.ts";
import type { Db } from "../../store/sqlite/client.ts";
import { alarmEvents, alarms, assets } from "../../store/sqlite/schema/index.ts";
import type { AlarmRow } from "./alarm-dto.ts";

export type CommLossCandidate = { assetId: string; silentSeconds: number };

export type CommLossRaised = {
  raised: AlarmRow[];
  /** Assets that already had an active comm_loss alarm (at most one per asset): asset → alarm id. */
  alreadyOpen: Map<string, string>;
  /** Assets deleted since they last reported: nothing to watch any more. */
  gone: string[];
};

/** Raises comm_loss for silent assets, in one transaction; at most one active per asset. */
export function raiseCommLoss(
  db: Db,
  candidates: readonly CommLossCandidate[],
  now: Date,
  limitSeconds: number,
): CommLossRaised {
  return db.transaction((tx) => {
    const out: CommLossRaised = { raised: [], alreadyOpen: new Map(), gone: [] };
    for (const { assetId, silentSeconds } of candidates) {
      const asset = tx
        .select({ projectId: assets.projectId, name: assets.name })
        .from(assets)
        .where(eq(assets.id, assetId))
        .get();
      if (!asset) {
        out.gone.push(assetId);
        continue;
      }
      const open = tx
        .select({ id: alarms.id })
        .from(alarms)
        .where(
          and(
            eq(alarms.projectId, asset.projectId),
            eq(alarms.active, true),
            eq(alarms.assetId, assetId),
            eq(alarms.alarmType, "comm_loss"),
          ),
        )
        .get();
      if (open) {
        out.alreadyOpen.set(assetId, open.id);
        continue;
      }
      const row = tx
        .insert(alarms)
        .values({
          id: randomUUID(),
          projectId: asset.projectId,
          assetId,
          ruleId: null,
          variable: COMM_LOSS_VARIABLE,
          value: silentSeconds,
          alarmType: "comm_loss",
          severity: COMM_LOSS_SEVERITY,
          message: commLossMessage(asset.name, silentSeconds, limitSeconds),
          timestamp: now,
          source: "server",
          createdAt: now,
        })
        .returning()
        .get();
      tx.insert(alarmEvents)
        .values({ id: randomUUID(), alarmId: row.id, event: "raised", at: now, value: silentSeconds })
        .run();
      out.raised.push(row);
    }
    return out;
  });
}

/** Data arrived again: the comm_loss alarm returns to normal; the history row keeps the silence in s. */
export function clearCommLoss(
  db: Db,
  alarmId: string,
  now: Date,
  silentSeconds: number,
): AlarmRow | undefined {
  return db.transaction((tx) => {
    const row = tx
      .update(alarms)
      .set({ active: false, returnedAt: now })
      .where(and(eq(alarms.id, alarmId), eq(alarms.active, true)))
      .returning()
      .get();
    if (row) {
      tx.insert(alarmEvents)
        .values({ id: randomUUID(), alarmId, event: "cleared", at: now, value: silentSeconds })
        .run();
    }
    return row;
  });
}
