import { integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt, id, instant } from "./columns.ts";
import { projects } from "./field.ts";

const plan = (name: string) => text(name, { enum: ["starter", "professional", "enterprise"] });

export const subscriptions = sqliteTable("subscriptions", {
  projectId: text("project_id")
    .primaryKey()
    .references(() => projects.id, { onDelete: "cascade" }),
  plan: plan("plan").notNull(),
  startedAt: instant("started_at").notNull(),
  updatedAt: instant("updated_at").notNull(),
});

/** Money is integer cents everywhere. */
export const invoices = sqliteTable(
  "invoices",
  {
    id: id(),
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    /** YYYY-MM. */
    period: text("period").notNull(),
    plan: plan("plan").notNull(),
    amountCents: integer("amount_cents").notNull(),
    status: text("status", { enum: ["pending", "paid", "overdue", "cancelled"] }).notNull(),
    issuedAt: instant("issued_at").notNull(),
    paidAt: instant("paid_at"),
  },
  (t) => [uniqueIndex("invoices_project_period_uq").on(t.projectId, t.period)],
);

/** Points ingested per project and month, counted at ingest (never by scanning raw rows). */
export const usageCounters = sqliteTable(
  "usage_counters",
  {
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    period: text("period").notNull(),
    telemetryPoints: integer("telemetry_points").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.period] })],
);

export const usageSnapshots = sqliteTable("usage_snapshots", {
  id: id(),
  projectId: text("project_id")
    .notNull()
    .references(() => projects.id, { onDelete: "cascade" }),
  periodStart: instant("period_start").notNull(),
  periodEnd: instant("period_end").notNull(),
  telemetryPoints: integer("telemetry_points").notNull(),
  activeDevices: integer("active_devices").notNull(),
  plan: plan("plan"),
  estimatedCostCents: integer("estimated_cost_cents").notNull(),
  createdAt: createdAt(),
});
