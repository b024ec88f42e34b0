import {
  downtime,
  labResults,
  meterReadings,
  movements,
  wellTests,
} from "../../store/sqlite/schema/index.ts";

/** The operational record tables (ANH 0651); each shares the columns of `recordColumns`. */
export const recordTables = { movements, downtime, wellTests, labResults, meterReadings } as const;

export type RecordTable = (typeof recordTables)[keyof typeof recordTables];

/** The audit log's `entity` for each record type. */
export type RecordEntity = "movement" | "downtime" | "well_test" | "lab_result" | "meter_reading";
