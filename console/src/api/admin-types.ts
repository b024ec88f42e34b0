import type { Role } from "../../../shared/permissions.ts";

/** The API's shapes for users, two-factor set-up and billing (GET /docs/openapi.yaml has them all). */

export type User = {
  id: string;
  email: string;
  name: string;
  role: Role;
  is_active: boolean;
  two_factor_enabled: boolean;
  projects: string[];
  created_at: string;
};

export type TwoFactorSetup = { secret: string; otpauth_url: string };

export type RecoveryCodes = { recovery_codes: string[] };

export type Plan = "starter" | "professional" | "enterprise";

export type BillingUsage = {
  project_id: string;
  period_start: string;
  period_end: string;
  telemetry_points: number;
  active_devices: number;
  plan: Plan;
  estimated_cost_usd: number;
};

export type InvoiceStatus = "pending" | "paid" | "overdue" | "cancelled";

export type Invoice = {
  id: string;
  project_id: string;
  period: string;
  plan: Plan;
  amount_usd: number;
  status: InvoiceStatus;
  issued_at: string;
  paid_at: string | null;
};

export type BillingSummary = { total_revenue_usd: number; active_subscriptions: number; mrr_usd: number };
