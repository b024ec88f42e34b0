/*
 * The rows the ports hand back. Both adapters' schemas read back as exactly these types
 * (server/store/postgres/migrations.test.ts checks it at compile time), so they are named once,
 * from the SQLite schema. A type-only import: nothing of SQLite is loaded through it.
 */
import type {
  assets,
  auditLog,
  devices,
  mqttCredentials,
  projects,
  variables,
} from "./sqlite/schema/index.ts";

export type ProjectRow = typeof projects.$inferSelect;
export type NewProjectRow = typeof projects.$inferInsert;
export type AssetRow = typeof assets.$inferSelect;
export type DeviceRow = typeof devices.$inferSelect;
export type VariableRow = typeof variables.$inferSelect;
export type AuditRow = typeof auditLog.$inferSelect;
export type MqttCredentialRow = typeof mqttCredentials.$inferSelect;
export type NewMqttCredentialRow = typeof mqttCredentials.$inferInsert;
