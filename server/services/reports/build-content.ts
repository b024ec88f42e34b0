import { eq } from "drizzle-orm";
import type { DbOrTx } from "../../store/sqlite/append-audit.ts";
import type { Sqlite } from "../../store/sqlite/client.ts";
import { assets, type projects } from "../../store/sqlite/schema/index.ts";
import { collectAlarms } from "./collect-alarms.ts";
import { collectMeterReadings } from "./collect-meters.ts";
import { collectDowntime, collectLabResults, collectMovements, collectWellTests } from "./collect-records.ts";
import { collectTelemetry } from "./collect-telemetry.ts";
import { type AnhReportContent, REPORT_FORMAT, REPORT_FORMAT_VERSION } from "./content-schema.ts";
import { type ProductionDay, utcOffsetAt } from "./production-day.ts";
import { iso } from "./report-numbers.ts";

export type ReportIdentity = {
  id: string;
  version: number;
  supersedes: string | null;
  generatedAt: Date;
  trigger: "scheduler" | "on_demand";
  requestedBy: string | null;
  previousHash: string | null;
};

/** Reads everything the day's report holds, in one transaction's snapshot, and assembles it. */
export function buildReportContent(
  db: DbOrTx,
  sqlite: Sqlite,
  project: typeof projects.$inferSelect,
  day: ProductionDay,
  identity: ReportIdentity,
): AnhReportContent {
  // Sorted here, not in SQL: JavaScript compares UTF-16 code units like RFC 8785 does, SQLite bytes.
  const projectAssets = db
    .select()
    .from(assets)
    .where(eq(assets.projectId, project.id))
    .all()
    .sort((a, b) => cmp(a.name, b.name) || cmp(a.id, b.id));
  const assetNames = new Map(projectAssets.map((a) => [a.id, a.name]));
  const { telemetry, dataQuality } = collectTelemetry(db, sqlite, project.id, day, projectAssets);
  return {
    format: REPORT_FORMAT,
    format_version: REPORT_FORMAT_VERSION,
    report: {
      id: identity.id,
      version: identity.version,
      supersedes: identity.supersedes,
      report_date: day.date,
      timezone: day.timezone,
      period_start: iso(day.startMs),
      period_end: iso(day.endMs),
      utc_offset_start: utcOffsetAt(day.startMs, day.timezone),
      utc_offset_end: utcOffsetAt(day.endMs, day.timezone),
      duration_hours: (day.endMs - day.startMs) / 3_600_000,
      generated_at: identity.generatedAt.toISOString(),
      trigger: identity.trigger,
      requested_by: identity.requestedBy,
    },
    project: {
      id: project.id,
      name: project.name,
      description: project.description,
      location: project.location,
    },
    field: {
      asset_count: projectAssets.length,
      assets: projectAssets.map((a) => ({
        id: a.id,
        name: a.name,
        asset_type: a.assetType,
        latitude: a.latitude,
        longitude: a.longitude,
      })),
    },
    movements: collectMovements(db, project.id, day),
    downtime: collectDowntime(db, project.id, day),
    well_tests: collectWellTests(db, project.id, day, assetNames),
    lab_results: collectLabResults(db, project.id, day),
    meter_readings: collectMeterReadings(db, project.id, day, assetNames),
    telemetry,
    alarms: collectAlarms(db, project.id, day),
    data_quality: dataQuality,
    integrity: {
      previous_report_sha384: identity.previousHash,
      algorithm: "SHA-384",
      canonicalization: "RFC 8785",
    },
  };
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
