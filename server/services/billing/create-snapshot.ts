import { randomUUID } from "node:crypto";
import type { AuthContext } from "../auth/auth-context.ts";
import type { ServiceContext } from "../context.ts";
import { visibleProject } from "../field/lookup.ts";
import { type SnapshotDto, toSnapshotDto } from "./billing-dto.ts";
import { monthOf } from "./billing-period.ts";
import { measureUsage } from "./measure-usage.ts";

/** POST /billing/snapshots: stores the current month's usage as measured now. */
export function createSnapshot(
  ctx: ServiceContext,
  auth: AuthContext,
  projectId: string,
): Promise<SnapshotDto> {
  const now = ctx.clock.now();
  return ctx.store.transaction(async (tx) => {
    await visibleProject(tx.field, auth, projectId);
    const usage = await measureUsage(tx, projectId, monthOf(now.getTime()), now.getTime());
    const row = await tx.billing.insertSnapshot({
      id: randomUUID(),
      projectId,
      periodStart: new Date(usage.period.startMs),
      periodEnd: new Date(usage.period.endMs),
      telemetryPoints: usage.telemetryPoints,
      activeDevices: usage.activeDevices,
      plan: usage.plan,
      estimatedCostCents: usage.estimatedCostCents,
      createdAt: now,
    });
    return toSnapshotDto(row);
  });
}
