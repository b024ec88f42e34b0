import { z } from "@hono/zod-openapi";
import { uuidParam } from "../../http/openapi.ts";
import { PLAN_NAMES } from "../../services/billing/plans.ts";

export const BILLING_TAG = "Billing";

const money = (description: string) => z.number().openapi({ description, example: 199 });
const instant = () => z.string().openapi({ format: "date-time" });

export const planEnum = z.enum(PLAN_NAMES, { error: `must be one of ${PLAN_NAMES.join(", ")}` });

export const projectQuery = z.object({
  project_id: z
    .uuid({ error: "is required and must be a UUID" })
    .openapi({ param: { name: "project_id", in: "query" } }),
});

export const invoiceIdParams = z.object({ id: uuidParam("id") });
export const projectIdParams = z.object({ project_id: uuidParam("project_id") });

export const usageSchema = z
  .object({
    project_id: z.uuid(),
    period_start: instant().openapi({ description: "first instant of the current calendar month, UTC" }),
    period_end: instant().openapi({ description: "exclusive: first instant of the next month, UTC" }),
    telemetry_points: z.number().int().openapi({ description: "points ingested this month" }),
    active_devices: z
      .number()
      .int()
      .openapi({ description: "enabled devices whose asset reported this month" }),
    plan: planEnum.openapi({
      description: "the project's plan: every project has one, starter unless a superadmin set another",
    }),
    estimated_cost_usd: money("the plan's price plus overage so far"),
  })
  .openapi("BillingUsage");

export const snapshotSchema = usageSchema
  .extend({
    plan: planEnum.nullable().openapi({
      description: "the plan when measured; null only in snapshots taken before every project had a plan",
    }),
    id: z.uuid(),
    created_at: instant(),
  })
  .openapi("BillingUsageSnapshot");

export const invoiceSchema = z
  .object({
    id: z.uuid(),
    project_id: z.uuid(),
    period: z.string().openapi({ example: "2025-03", description: "YYYY-MM" }),
    plan: planEnum,
    amount_usd: money("two decimals"),
    status: z.enum(["pending", "paid", "overdue", "cancelled"]),
    issued_at: instant(),
    paid_at: instant().nullable(),
  })
  .openapi("Invoice");

export const invoiceStatusRequest = z
  .object({
    status: z.enum(["pending", "paid", "overdue", "cancelled"], {
      error: "must be one of pending, paid, overdue, cancelled",
    }),
  })
  .openapi("InvoiceStatusRequest");

export const subscriptionRequest = z.object({ plan: planEnum }).openapi("SubscriptionRequest");

export const subscriptionSchema = z
  .object({
    project_id: z.uuid(),
    plan: planEnum,
    monthly_price_usd: money("the plan's monthly price"),
    started_at: instant(),
    updated_at: instant(),
    issued_invoice: invoiceSchema.nullable().openapi({
      description:
        "the current month's invoice if this call started the project's subscription; otherwise null " +
        "(a project is subscribed, and invoiced for its first month, when it is created)",
    }),
  })
  .openapi("Subscription");

export const billingSummarySchema = z
  .object({
    total_revenue_usd: money("sum of paid invoices"),
    active_subscriptions: z.number().int().openapi({ description: "projects with a plan: every project" }),
    mrr_usd: money("monthly prices of the active subscriptions"),
  })
  .openapi("BillingSummary");

export const snapshotRequest = z
  .object({ project_id: z.uuid({ error: "is required and must be a UUID" }) })
  .openapi("BillingSnapshotRequest");
