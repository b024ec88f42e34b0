import { z } from "@hono/zod-openapi";

const complianceStatus = z.enum(["compliant", "attention", "non_compliant"]);

export const dashboardSummarySchema = z
  .object({
    active_assets: z.number().int().openapi({ description: "assets that reported in the last 15 minutes" }),
    total_alarms: z
      .number()
      .int()
      .openapi({ description: "alarms still active or not yet acknowledged (those GET /alarms lists)" }),
    recent_telemetry: z
      .array(
        z.object({
          project_id: z.uuid(),
          asset_id: z.uuid(),
          asset_name: z.string(),
          variable: z.string(),
          value: z.number(),
          unit: z.string().nullable(),
          timestamp: z.string().openapi({ format: "date-time" }),
        }),
      )
      .openapi({
        description:
          "the newest reading of the 20 most recently updated series, newest first; empty for anh_reader",
      }),
    compliance_status: complianceStatus.openapi({
      description:
        "non_compliant when a project lacks yesterday's generated report; attention when a report lists " +
        "data gaps; compliant otherwise (also with no projects)",
    }),
    compliance: z
      .array(
        z.object({
          project_id: z.uuid(),
          project_name: z.string(),
          report_date: z.string().openapi({ format: "date", description: "yesterday in the project's zone" }),
          status: complianceStatus,
          report_id: z.uuid().nullable(),
          report_status: z.enum(["pending", "generated", "submitted"]).nullable(),
          gap_count: z.number().int().nullable(),
        }),
      )
      .openapi({ description: "per active project, behind compliance_status" }),
  })
  .openapi("DashboardSummary");
