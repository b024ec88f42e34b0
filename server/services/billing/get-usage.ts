import type { AuthContext } from "../auth/auth-context.ts";
import type { ServiceContext } from "../context.ts";
import { visibleProject } from "../field/lookup.ts";
import type { UsageDto } from "./billing-dto.ts";
import { monthOf } from "./billing-period.ts";
import { measureUsage, type Usage } from "./measure-usage.ts";
import { centsToUsd } from "./plans.ts";

export function toUsageDto(u: Usage): UsageDto {
  return {
    project_id: u.projectId,
    period_start: new Date(u.period.startMs).toISOString(),
    period_end: new Date(u.period.endMs).toISOString(),
    telemetry_points: u.telemetryPoints,
    active_devices: u.activeDevices,
    plan: u.plan,
    estimated_cost_usd: centsToUsd(u.estimatedCostCents),
  };
}

/** GET /billing/usage: the current calendar month (UTC) so far. */
export async function getUsage(ctx: ServiceContext, auth: AuthContext, projectId: string): Promise<UsageDto> {
  await visibleProject(ctx.store.field, auth, projectId);
  const now = ctx.clock.now().getTime();
  return toUsageDto(await measureUsage(ctx.store, projectId, monthOf(now), now));
}
