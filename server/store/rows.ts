/*
 * The rows the ports hand back. Both adapters' schemas read back as exactly these types
 * (server/store/postgres/migrations.test.ts checks it at compile time), so they are named once,
 * from the SQLite schema. A type-only import: nothing of SQLite is loaded through it.
 */
import type * as schema from "./sqlite/schema/index.ts";

// Field
export type ProjectRow = typeof schema.projects.$inferSelect;
export type NewProjectRow = typeof schema.projects.$inferInsert;
export type AssetRow = typeof schema.assets.$inferSelect;
export type NewAssetRow = typeof schema.assets.$inferInsert;
export type DeviceRow = typeof schema.devices.$inferSelect;
export type NewDeviceRow = typeof schema.devices.$inferInsert;
export type VariableRow = typeof schema.variables.$inferSelect;
export type NewVariableRow = typeof schema.variables.$inferInsert;

// Identity
export type UserRow = typeof schema.users.$inferSelect;
export type NewUserRow = typeof schema.users.$inferInsert;
export type SessionRow = typeof schema.sessions.$inferSelect;
export type NewSessionRow = typeof schema.sessions.$inferInsert;
export type RefreshTokenRow = typeof schema.refreshTokens.$inferSelect;
export type NewRecoveryCodeRow = typeof schema.recoveryCodes.$inferInsert;

// Audit
export type AuditRow = typeof schema.auditLog.$inferSelect;

// Agents
export type EnrollmentCodeRow = typeof schema.enrollmentCodes.$inferSelect;
export type NewEnrollmentCodeRow = typeof schema.enrollmentCodes.$inferInsert;
export type DeploymentRow = typeof schema.deployments.$inferSelect;
export type NewDeploymentRow = typeof schema.deployments.$inferInsert;
export type AgentLogRow = typeof schema.agentLogs.$inferSelect;
export type NewAgentLogRow = typeof schema.agentLogs.$inferInsert;
export type AgentStatusRow = typeof schema.agentStatus.$inferSelect;

// Alarms
export type AlertRuleRow = typeof schema.alertRules.$inferSelect;
export type NewAlertRuleRow = typeof schema.alertRules.$inferInsert;
export type AlarmRow = typeof schema.alarms.$inferSelect;
export type NewAlarmRow = typeof schema.alarms.$inferInsert;
export type AlarmEventRow = typeof schema.alarmEvents.$inferSelect;

// Records
export type MovementRow = typeof schema.movements.$inferSelect;
export type NewMovementRow = typeof schema.movements.$inferInsert;
export type DowntimeRow = typeof schema.downtime.$inferSelect;
export type NewDowntimeRow = typeof schema.downtime.$inferInsert;
export type WellTestRow = typeof schema.wellTests.$inferSelect;
export type NewWellTestRow = typeof schema.wellTests.$inferInsert;
export type LabResultRow = typeof schema.labResults.$inferSelect;
export type NewLabResultRow = typeof schema.labResults.$inferInsert;
export type MeterReadingRow = typeof schema.meterReadings.$inferSelect;
export type NewMeterReadingRow = typeof schema.meterReadings.$inferInsert;

// Reports
export type AnhReportRow = typeof schema.anhReports.$inferSelect;
export type NewAnhReportRow = typeof schema.anhReports.$inferInsert;

// Billing
export type SubscriptionRow = typeof schema.subscriptions.$inferSelect;
export type InvoiceRow = typeof schema.invoices.$inferSelect;
export type NewInvoiceRow = typeof schema.invoices.$inferInsert;
export type UsageSnapshotRow = typeof schema.usageSnapshots.$inferSelect;
export type NewUsageSnapshotRow = typeof schema.usageSnapshots.$inferInsert;

// Distribution and HMIs
export type InstallerBuildRow = typeof schema.installerBuilds.$inferSelect;
export type NewInstallerBuildRow = typeof schema.installerBuilds.$inferInsert;
export type MqttCredentialRow = typeof schema.mqttCredentials.$inferSelect;
export type NewMqttCredentialRow = typeof schema.mqttCredentials.$inferInsert;

// Derived
export type AssetType = AssetRow["assetType"];
