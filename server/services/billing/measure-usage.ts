import { and, count, eq, exists, gte, lt, sql } from "drizzle-orm";
import type { DbOrTx } from "../../store/sqlite/append-audit.ts";
import {
  assets,
  devices,
  subscriptions,
  telemetryRollup5m,
  telemetrySeries,
  usageCounters,
} from "../../store/sqlite/schema/index.ts";
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

/** Points ingested in the period, as counted at ingest (usage_counters, never a scan of raw rows). */
export function telemetryPointsIn(db: DbOrTx, projectId: string, period: BillingPeriod): number {
  const row = db
    .select({ points: usageCounters.telemetryPoints })
    .from(usageCounters)
    .where(and(eq(usageCounters.projectId, projectId), eq(usageCounters.period, period.period)))
    .get();
  return row?.points ?? 0;
}

/**
 * Enabled devices whose asset reported in the period. For the running month the series' newest
 * reading (telemetry_series.last_ts ≥ period start) tells; for a closed month, whether the asset
 * has a 5-minute rollup inside it.
 */
export function activeDevicesIn(db: DbOrTx, projectId: string, period: BillingPeriod, nowMs: number): number {
  const running = nowMs < period.endMs;
  const reported = running
    ? db
        .select({ one: sql`1` })
        .from(telemetrySeries)
        .where(and(eq(telemetrySeries.assetId, assets.id), gte(telemetrySeries.lastTs, period.startMs)))
    : db
        .select({ one: sql`1` })
        .from(telemetrySeries)
        .innerJoin(
          telemetryRollup5m,
          and(
            eq(telemetryRollup5m.seriesId, telemetrySeries.id),
            gte(telemetryRollup5m.bucket, period.startMs),
            lt(telemetryRollup5m.bucket, period.endMs),
          ),
        )
        .where(eq(telemetrySeries.assetId, assets.id));
  const row = db
    .select({ n: count() })
    .from(devices)
    .innerJoin(assets, eq(assets.id, devices.assetId))
    .where(and(eq(assets.projectId, projectId), eq(devices.enabled, true), exists(reported)))
    .get();
  return row?.n ?? 0;
}

/**
 * The project's plan. Every project has a subscription from its creation (and migration 0004 gave
 * one to older projects); a project without one still bills as the default plan, never as none.
 */
export function planOf(db: DbOrTx, projectId: string): PlanName {
  const row = db
    .select({ plan: subscriptions.plan })
    .from(subscriptions)
    .where(eq(subscriptions.projectId, projectId))
    .get();
  return row?.plan ?? DEFAULT_PLAN;
}

/** A project's usage and estimated cost for `period` under its current plan. */
export function measureUsage(db: DbOrTx, projectId: string, period: BillingPeriod, nowMs: number): Usage {
  const telemetryPoints = telemetryPointsIn(db, projectId, period);
  const activeDevices = activeDevicesIn(db, projectId, period, nowMs);
  const plan = planOf(db, projectId);
  return {
    projectId,
    period,
    telemetryPoints,
    activeDevices,
    plan,
    estimatedCostCents: estimatedCostCents(PLANS[plan], telemetryPoints, activeDevices),
  };
}
