import { z } from "@hono/zod-openapi";

/*
 * The content of a daily ANH 0651 report (docs/anh-report.md explains every field). The stored
 * bytes are this object canonicalised with RFC 8785; instants are ISO 8601 UTC strings with
 * milliseconds; volumes and averages are rounded to 12 significant digits so that float noise
 * (0.1 + 0.2) does not reach the regulator.
 */

const instant = z.string().openapi({ format: "date-time", example: "2025-03-10T05:00:00.000Z" });
const uuid = z.string().openapi({ format: "uuid" });
const nullableNumber = z.number().nullable();

const recordTrail = {
  supersedes: uuid.nullable().openapi({ description: "the record this one corrects, if any" }),
  correction_reason: z.string().nullable(),
};

export const MOVEMENT_TYPES = ["production", "transfer", "injection", "flare", "loss"] as const;

const reportSection = z
  .object({
    id: uuid,
    version: z.number().int().min(1),
    supersedes: uuid.nullable().openapi({ description: "id of the previous version of this day's report" }),
    report_date: z.string().openapi({ format: "date", example: "2025-03-10" }),
    timezone: z.string().openapi({ example: "America/Bogota" }),
    period_start: instant,
    period_end: instant.openapi({ description: "exclusive: the start of the next production day" }),
    utc_offset_start: z.string().openapi({ example: "-05:00" }),
    utc_offset_end: z.string().openapi({ example: "-05:00" }),
    duration_hours: z.number().openapi({ description: "24, or 23/25 on a daylight-saving change" }),
    generated_at: instant,
    trigger: z.enum(["scheduler", "on_demand"]),
    requested_by: uuid.nullable().openapi({ description: "user who asked for it; null for the scheduler" }),
  })
  .openapi("ANHReportWindow");

const projectSection = z.object({
  id: uuid,
  name: z.string(),
  description: z.string().nullable(),
  location: z.string().nullable(),
});

const fieldSection = z.object({
  asset_count: z.number().int(),
  assets: z.array(
    z.object({
      id: uuid,
      name: z.string(),
      asset_type: z.enum(["well", "tank", "pipeline", "station", "meter"]),
      latitude: nullableNumber,
      longitude: nullableNumber,
    }),
  ),
});

const movementsSection = z.object({
  count: z.number().int(),
  totals_bbls: z.object({
    production: z.number(),
    transfer: z.number(),
    injection: z.number(),
    flare: z.number(),
    loss: z.number(),
  }),
  entries: z.array(
    z.object({
      id: uuid,
      movement_type: z.enum(MOVEMENT_TYPES),
      volume_bbls: z.number(),
      timestamp: instant,
      notes: z.string().nullable(),
      ...recordTrail,
    }),
  ),
});

const downtimeSection = z.object({
  count: z.number().int(),
  total_hours_lost: z.number(),
  entries: z.array(
    z.object({
      id: uuid,
      reason: z.string(),
      started_at: instant,
      ended_at: instant.nullable(),
      ongoing: z.boolean().openapi({ description: "no end recorded when the report was generated" }),
      counted_from: instant,
      counted_to: instant,
      hours_lost: z.number().openapi({ description: "hours within this production day" }),
      ...recordTrail,
    }),
  ),
});

const wellTestsSection = z.object({
  count: z.number().int(),
  entries: z.array(
    z.object({
      id: uuid,
      asset_id: uuid,
      asset_name: z.string().nullable(),
      test_date: instant,
      oil_rate_bopd: nullableNumber,
      water_cut_pct: nullableNumber,
      gor_scf_bbl: nullableNumber,
      ...recordTrail,
    }),
  ),
});

const labResultsSection = z.object({
  count: z.number().int(),
  entries: z.array(
    z.object({
      id: uuid,
      sample_date: instant,
      api_gravity: z.number(),
      bsw_pct: nullableNumber,
      viscosity_cp: nullableNumber,
      ...recordTrail,
    }),
  ),
});

const meterPoint = z.object({ reading_id: uuid, value: z.number(), read_at: instant });

const meterReadingsSection = z.object({
  count: z.number().int(),
  meters: z.array(
    z.object({
      meter_id: uuid,
      meter_name: z.string().nullable(),
      unit: z.string().nullable(),
      opening: meterPoint.extend({
        carried_over: z
          .boolean()
          .openapi({ description: "true when taken before the day (the previous close)" }),
      }),
      closing: meterPoint,
      delta: z.number(),
      readings: z.array(
        z.object({
          id: uuid,
          value: z.number(),
          read_at: instant,
          unit: z.string().nullable(),
          ...recordTrail,
        }),
      ),
    }),
  ),
});

const variableStats = z.object({
  variable: z.string(),
  unit: z.string().nullable(),
  count: z.number().int().openapi({ description: "samples received in the day" }),
  min: nullableNumber,
  max: nullableNumber,
  avg: nullableNumber,
  first_bucket: instant.nullable(),
  last_bucket: instant.nullable(),
  poll_interval_ms: z.number().int().nullable(),
  expected_samples: z.number().int().nullable(),
  completeness_pct: nullableNumber,
});

const telemetrySection = z.object({
  source: z.literal("telemetry_rollup_5m"),
  bucket_seconds: z.literal(300),
  series_count: z.number().int(),
  samples_received: z.number().int(),
  samples_expected: z.number().int(),
  assets: z.array(
    z.object({
      asset_id: uuid,
      asset_name: z.string(),
      asset_type: z.string(),
      variables: z.array(variableStats),
    }),
  ),
});

export const ALARM_TYPES = ["high", "low", "critical_high", "critical_low", "comm_loss"] as const;

const alarmsSection = z.object({
  count: z.number().int(),
  by_type: z.object({
    high: z.number().int(),
    low: z.number().int(),
    critical_high: z.number().int(),
    critical_low: z.number().int(),
    comm_loss: z.number().int(),
  }),
  entries: z.array(
    z.object({
      id: uuid,
      asset_id: uuid.nullable(),
      variable: z.string(),
      value: z.number(),
      alarm_type: z.enum(ALARM_TYPES),
      severity: z.enum(["info", "warning", "critical"]),
      message: z.string(),
      raised_at: instant,
      returned_at: instant.nullable(),
      acknowledged: z.boolean(),
      source: z.enum(["server", "agent"]),
    }),
  ),
});

const dataQualitySection = z.object({
  complete: z.boolean().openapi({ description: "true when no gap was found" }),
  gap_count: z.number().int(),
  gap_minutes: z.number().int(),
  series_with_gaps: z.number().int(),
  gaps: z.array(
    z.object({
      asset_id: uuid,
      variable: z.string(),
      start: instant,
      end: instant.openapi({ description: "exclusive" }),
      missing_buckets: z.number().int(),
      minutes: z.number().int(),
    }),
  ),
});

const integritySection = z.object({
  previous_report_sha384: z
    .string()
    .nullable()
    .openapi({ description: "hash of the project's previously generated report; null for the first" }),
  algorithm: z.literal("SHA-384"),
  canonicalization: z.literal("RFC 8785"),
});

export const REPORT_FORMAT = "caudal/anh-0651-daily";
export const REPORT_FORMAT_VERSION = 1;

export const anhReportContentSchema = z
  .object({
    format: z.literal(REPORT_FORMAT),
    format_version: z.literal(REPORT_FORMAT_VERSION),
    report: reportSection,
    project: projectSection,
    field: fieldSection,
    movements: movementsSection,
    downtime: downtimeSection,
    well_tests: wellTestsSection,
    lab_results: labResultsSection,
    meter_readings: meterReadingsSection,
    telemetry: telemetrySection,
    alarms: alarmsSection,
    data_quality: dataQualitySection,
    integrity: integritySection,
  })
  .openapi("ANHReportContent", {
    description:
      "The daily ANH 0651 report, stored as RFC 8785 canonical JSON and hashed with SHA-384 over those " +
      "exact bytes. Field meanings: docs/anh-report.md.",
  });

export type AnhReportContent = z.infer<typeof anhReportContentSchema>;
export type MovementsSection = AnhReportContent["movements"];
export type DowntimeSection = AnhReportContent["downtime"];
export type WellTestsSection = AnhReportContent["well_tests"];
export type LabResultsSection = AnhReportContent["lab_results"];
export type MeterReadingsSection = AnhReportContent["meter_readings"];
export type TelemetrySection = AnhReportContent["telemetry"];
export type AlarmsSection = AnhReportContent["alarms"];
export type DataQualitySection = AnhReportContent["data_quality"];
