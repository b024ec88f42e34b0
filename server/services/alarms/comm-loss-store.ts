import { randomUUID } from "node:crypto";
import { COMM_LOSS_SEVERITY, COMM_LOSS_VARIABLE } from "../../../shared/alarms/comm-loss.ts";
import { commLossMessage } from "../../../shared/alarms/message.ts";
import type { Store } from "../../store/store.ts";
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
  store: Store,
  candidates: readonly CommLossCandidate[],
  now: Date,
  limitSeconds: number,
): Promise<CommLossRaised> {
  return store.transaction(async (tx) => {
    const out: CommLossRaised = { raised: [], alreadyOpen: new Map(), gone: [] };
    for (const { assetId, silentSeconds } of candidates) {
      const asset = await tx.field.asset(assetId);
      if (!asset) {
        out.gone.push(assetId);
        continue;
      }
      const open = await tx.alarms.activeCommLoss(asset.projectId, assetId);
      if (open !== undefined) {
        out.alreadyOpen.set(assetId, open);
        continue;
      }
      const row = await tx.alarms.raise({
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
      });
      out.raised.push(row);
    }
    return out;
  });
}

/** Data arrived again: the comm_loss alarm returns to normal; the history row keeps the silence in s. */
export async function clearCommLoss(
  store: Store,
  alarmId: string,
  now: Date,
  silentSeconds: number,
): Promise<AlarmRow | undefined> {
  const [row] = await store.alarms.returnToNormal(
    { alarmId },
    { at: now, value: silentSeconds, userId: null },
  );
  return row;
}
