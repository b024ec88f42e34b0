import type { InvoiceRow, UsageSnapshotRow as SnapshotRow } from "../../store/rows.ts";
import { centsToUsd, type PlanName } from "./plans.ts";

/** Invoice (spec §2) plus the plan it bills. */
export type InvoiceDto = {
  id: string;
  project_id: string;
  period: string;
  plan: PlanName;
  amount_usd: number;
  status: InvoiceRow["status"];
  issued_at: string;
  paid_at: string | null;
};

export function toInvoiceDto(row: InvoiceRow): InvoiceDto {
  return {
    id: row.id,
    project_id: row.projectId,
    period: row.period,
    plan: row.plan,
    amount_usd: centsToUsd(row.amountCents),
    status: row.status,
    issued_at: row.issuedAt.toISOString(),
    paid_at: row.paidAt?.toISOString() ?? null,
  };
}

/** What the audit log keeps of an invoice (amount in cents, as stored). */
export function invoiceAuditView(row: InvoiceRow) {
  return {
    id: row.id,
    period: row.period,
    plan: row.plan,
    amount_cents: row.amountCents,
    status: row.status,
    paid_at: row.paidAt?.toISOString() ?? null,
  };
}

/** BillingUsage (spec §2): `plan` is one of the three, never null (every project has one). */
export type UsageDto = {
  project_id: string;
  period_start: string;
  period_end: string;
  telemetry_points: number;
  active_devices: number;
  plan: PlanName;
  estimated_cost_usd: number;
};

/**
 * A stored measurement. Its plan is null only in snapshots taken before every project had a plan;
 * they are kept as they were measured (estimated cost 0).
 */
export type SnapshotDto = Omit<UsageDto, "plan"> & { plan: PlanName | null; id: string; created_at: string };

export function toSnapshotDto(row: SnapshotRow): SnapshotDto {
  return {
    id: row.id,
    project_id: row.projectId,
    period_start: row.periodStart.toISOString(),
    period_end: row.periodEnd.toISOString(),
    telemetry_points: row.telemetryPoints,
    active_devices: row.activeDevices,
    plan: row.plan,
    estimated_cost_usd: centsToUsd(row.estimatedCostCents),
    created_at: row.createdAt.toISOString(),
  };
}
