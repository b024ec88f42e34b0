import type { StorePorts } from "../../store/store.ts";
import type { BillingPeriod } from "./billing-period.ts";
import { estimatedCostCents, PLANS, type PlanName } from "./plans.ts";
import { DEFAULT_PLAN } from "./start-subscription.ts";

export type Usage = {
  projectId: string;
  period: BillingPeriod;
  telemetryPoints: number;
  activeDevices: number;
  plan: PlanName;
  /** Plan price plus overage. */
  estimatedCostCents: number;
};

/** The ports usage is measured through: the billing port's counts and telemetry's reads. */
type UsagePorts = Pick<StorePorts, "billing" | "telemetry">;

/** Points ingested in the period, as counted at ingest (never a scan of raw rows). */
export function telemetryPointsIn(
  ports: UsagePorts,
  projectId: string,
  period: BillingPeriod,
): Promise<number> {
  return ports.billing.telemetryPoints(projectId, period.period);
}

/**
 * Enabled devices whose asset reported in the period. For the running month the series' newest
 * reading (at or after the period's start) tells; for a closed month, whether the asset has a
 * 5-minute rollup inside it.
 */
export function activeDevicesIn(
  ports: UsagePorts,
  projectId: string,
  period: BillingPeriod,
  nowMs: number,
): Promise<number> {
  return nowMs < period.endMs
    ? ports.telemetry.devicesReportingSince(projectId, period.startMs)
    : ports.telemetry.devicesReportedIn(projectId, period.startMs, period.endMs);
}

/**
 * The project's plan. Every project has a subscription from its creation (and migration 0004 gave
 * one to older projects); a project without one still bills as the default plan, never as none.
 */
export async function planOf(ports: UsagePorts, projectId: string): Promise<PlanName> {
  return (await ports.billing.subscription(projectId))?.plan ?? DEFAULT_PLAN;
}

/** A project's usage and estimated cost for `period` under its current plan. */
export async function measureUsage(
  ports: UsagePorts,
  projectId: string,
  period: BillingPeriod,
  nowMs: number,
): Promise<Usage> {
  const telemetryPoints = await telemetryPointsIn(ports, projectId, period);
  const activeDevices = await activeDevicesIn(ports, projectId, period, nowMs);
  const plan = await planOf(ports, projectId);
  return {
    projectId,
    period,
    telemetryPoints,
    activeDevices,
    plan,
    estimatedCostCents: estimatedCostCents(PLANS[plan], telemetryPoints, activeDevices),
  };
}
