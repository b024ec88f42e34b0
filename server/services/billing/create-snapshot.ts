import { randomUUID } from "node:crypto";
import { usageSnapshots } from "../../store/sqlite/schema/index.ts";
import type { AuthContext } from "../auth/auth-context.ts";
import type { ServiceContext } from "../context.ts";
import { type SnapshotDto, toSnapshotDto } from "./billing-dto.ts";
import { monthOf } from "./billing-period.ts";
import { billingProject } from "./billing-project.ts";
import { measureUsage } from "./measure-usage.ts";

/** POST /billing/snapshots: stores the current month's usage as measured now. */
export function createSnapshot(ctx: ServiceContext, auth: AuthContext, projectId: string): SnapshotDto {
  const now = ctx.clock.now();
  return ctx.db.transaction((tx) => {
    billingProject(tx, auth, projectId);
    const usage = measureUsage(tx, projectId, monthOf(now.getTime()), now.getTime());
    const row = tx
      .insert(usageSnapshots)
      .values({
        id: randomUUID(),
        projectId,
        periodStart: new Date(usage.period.startMs),
        periodEnd: new Date(usage.period.endMs),
        telemetryPoints: usage.telemetryPoints,
        activeDevices: usage.activeDevices,
        plan: usage.plan,
        estimatedCostCents: usage.estimatedCostCents,
        createdAt: now,
      })
      .returning()
      .get();
    return toSnapshotDto(row);
  });
}
