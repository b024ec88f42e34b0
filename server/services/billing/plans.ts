/**
 * The subscription plans: the one place prices live. Money is integer US cents (never floats);
 * it becomes a two-decimal number of dollars only at the API edge.
 *
 * | plan         | monthly  | telemetry points included | devices included | per 1,000 extra points | per extra device |
 * |--------------|----------|---------------------------|------------------|------------------------|------------------|
 * | starter      | $199     | 1,000,000                 | 10               | $0.50                  | $15              |
 * | professional | $799     | 10,000,000                | 50               | $0.30                  | $12              |
 * | enterprise   | $2,999   | 100,000,000               | 250              | $0.10                  | $8               |
 *
 * Extra points are charged per started block of 1,000 (1,001 extra points are two blocks).
 */
export const PLAN_NAMES = ["starter", "professional", "enterprise"] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

export type Plan = {
  name: PlanName;
  monthlyPriceCents: number;
  includedTelemetryPoints: number;
  includedDevices: number;
  overagePer1000PointsCents: number;
  overagePerDeviceCents: number;
};

export const PLANS: Readonly<Record<PlanName, Plan>> = {
  starter: {
    name: "starter",
    monthlyPriceCents: 19_900,
    includedTelemetryPoints: 1_000_000,
    includedDevices: 10,
    overagePer1000PointsCents: 50,
    overagePerDeviceCents: 1_500,
  },
  professional: {
    name: "professional",
    monthlyPriceCents: 79_900,
    includedTelemetryPoints: 10_000_000,
    includedDevices: 50,
    overagePer1000PointsCents: 30,
    overagePerDeviceCents: 1_200,
  },
  enterprise: {
    name: "enterprise",
    monthlyPriceCents: 299_900,
    includedTelemetryPoints: 100_000_000,
    includedDevices: 250,
    overagePer1000PointsCents: 10,
    overagePerDeviceCents: 800,
  },
};

/** Charges beyond the plan's inclusions for a month's usage. */
export function overageCents(plan: Plan, telemetryPoints: number, activeDevices: number): number {
  const extraPoints = Math.max(0, telemetryPoints - plan.includedTelemetryPoints);
  const extraDevices = Math.max(0, activeDevices - plan.includedDevices);
  return (
    Math.ceil(extraPoints / 1000) * plan.overagePer1000PointsCents + extraDevices * plan.overagePerDeviceCents
  );
}

/** The month's estimated bill: the plan's price plus overage. */
export function estimatedCostCents(plan: Plan, telemetryPoints: number, activeDevices: number): number {
  return plan.monthlyPriceCents + overageCents(plan, telemetryPoints, activeDevices);
}

/** Cents → dollars with two decimals, exact for any integer number of cents. */
export function centsToUsd(cents: number): number {
  return Number((cents / 100).toFixed(2));
}
