import type { ProjectRow } from "../../store/rows.ts";
import type { StorePorts } from "../../store/store.ts";
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

/**
 * Reads everything the day's report holds through the ports of one transaction (`tx`), so every
 * section sees the same snapshot, and assembles it.
 */
export async function buildReportContent(
  tx: StorePorts,
  project: ProjectRow,
  day: ProductionDay,
  identity: ReportIdentity,
): Promise<AnhReportContent> {
  // Sorted here, not in SQL: JavaScript compares UTF-16 code units like RFC 8785 does, the
  // databases compare bytes.
  const projectAssets = (await tx.field.assetsOf(project.id)).sort(
    (a, b) => cmp(a.name, b.name) || cmp(a.id, b.id),
  );
  const assetNames = new Map(projectAssets.map((a) => [a.id, a.name]));
  const { telemetry, dataQuality } = await collectTelemetry(tx, project.id, day, projectAssets);
  // Read in the order the sections appear (the transaction holds one snapshot either way).
  const movements = await collectMovements(tx.records, project.id, day);
  const downtime = await collectDowntime(tx.records, project.id, day);
  const wellTests = await collectWellTests(tx.records, project.id, day, assetNames);
  const labResults = await collectLabResults(tx.records, project.id, day);
  const meterReadings = await collectMeterReadings(tx.records, project.id, day, assetNames);
  const alarms = await collectAlarms(tx.alarms, project.id, day);
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
    movements,
    downtime,
    well_tests: wellTests,
    lab_results: labResults,
    meter_readings: meterReadings,
    telemetry,
    alarms,
    data_quality: dataQuality,
    integrity: {
      previous_report_sha384: identity.previousHash,
      algorithm: "SHA-384",
      canonicalization: "RFC 8785",
    },
  };
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
