/*
 * The rows the ports hand back. Both adapters' schemas read back as exactly these types
 * (server/store/postgres/migrations.test.ts checks it at compile time), so they are named once,
 * from the SQLite schema. A type-only import: nothing of SQLite is loaded through it.
 */
import type {
  anhReports,
  assets,
  auditLog,
  devices,
  invoices,
  projects,
  subscriptions,
  usageSnapshots,
  variables,
} from "./sqlite/schema/index.ts";

export type ProjectRow = typeof projects.$inferSelect;
export type NewProjectRow = typeof projects.$inferInsert;
export type AssetRow = typeof assets.$inferSelect;
export type DeviceRow = typeof devices.$inferSelect;
export type VariableRow = typeof variables.$inferSelect;
export type AuditRow = typeof auditLog.$inferSelect;
export type SubscriptionRow = typeof subscriptions.$inferSelect;
export type InvoiceRow = typeof invoices.$inferSelect;
export type NewInvoiceRow = typeof invoices.$inferInsert;
export type UsageSnapshotRow = typeof usageSnapshots.$inferSelect;
export type NewUsageSnapshotRow = typeof usageSnapshots.$inferInsert;
export type AnhReportRow = typeof anhReports.$inferSelect;
