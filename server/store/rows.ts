/*
 * The rows the ports hand back. Both adapters' schemas read back as exactly these types
 * (server/store/postgres/migrations.test.ts checks it at compile time), so they are named once,
 * from the SQLite schema. A type-only import: nothing of SQLite is loaded through it.
 */
import type {
  assets,
  devices,
  downtime,
  labResults,
  meterReadings,
  movements,
  projects,
  variables,
  wellTests,
} from "./sqlite/schema/index.ts";

export type ProjectRow = typeof projects.$inferSelect;
export type NewProjectRow = typeof projects.$inferInsert;
export type AssetRow = typeof assets.$inferSelect;
export type DeviceRow = typeof devices.$inferSelect;
export type VariableRow = typeof variables.$inferSelect;
export type AssetType = AssetRow["assetType"];
export type MovementRow = typeof movements.$inferSelect;
export type NewMovementRow = typeof movements.$inferInsert;
export type DowntimeRow = typeof downtime.$inferSelect;
export type NewDowntimeRow = typeof downtime.$inferInsert;
export type WellTestRow = typeof wellTests.$inferSelect;
export type NewWellTestRow = typeof wellTests.$inferInsert;
export type LabResultRow = typeof labResults.$inferSelect;
export type NewLabResultRow = typeof labResults.$inferInsert;
export type MeterReadingRow = typeof meterReadings.$inferSelect;
export type NewMeterReadingRow = typeof meterReadings.$inferInsert;
