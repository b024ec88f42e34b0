import { z } from "@hono/zod-openapi";
import { SPARK_HOURS_DEFAULT, SPARK_HOURS_MAX } from "../../services/dashboard/overview.ts";
import { alarmEventSchema } from "../alarms/schema.ts";
import { ASSET_TYPES } from "../field/assets/schema.ts";

export const overviewQuery = z.object({
  project_id: z
    .uuid({ error: "must be a UUID" })
    .optional()
    .openapi({
      param: { name: "project_id", in: "query" },
      description: "one project; without it, every active project the caller can see",
    }),
  hours: z.coerce
    .number({ error: "must be a whole number of hours from 1 to 24" })
    .int({ error: "must be a whole number of hours from 1 to 24" })
    .min(1, { error: "must be a whole number of hours from 1 to 24" })
    .max(SPARK_HOURS_MAX, { error: "must be a whole number of hours from 1 to 24" })
    .optional()
    .openapi({
      param: { name: "hours", in: "query" },
      description: `how far back the sparklines go (default ${SPARK_HOURS_DEFAULT})`,
    }),
});

const instant = z.iso.datetime();

const stretch = z.object({
  from: instant,
  to: instant.openapi({ description: "exclusive" }),
  volume_bbls: z
    .number()
    .openapi({ description: "production movements summed, as the ANH report sums them" }),
  movements: z.number().int(),
});

const keyVariable = z.object({
  variable: z.string(),
  unit: z.string().nullable(),
  value: z.number().nullable().openapi({ description: "the series' newest reading; null when it has none" }),
  timestamp: instant.nullable(),
  spark: z.array(z.number().nullable()).openapi({
    description:
      "the 5-minute averages from sparkline.from to sparkline.to, oldest first, 4 significant digits; " +
      "null for a bucket without readings; empty when the variable never reported",
  }),
});

const asset = z.object({
  asset_id: z.uuid(),
  name: z.string(),
  asset_type: z.enum(ASSET_TYPES),
  variable_count: z.number().int().openapi({ description: "variables configured or reporting on the asset" }),
  poll_interval_ms: z.number().int().nullable().openapi({
    description: "the shortest poll interval of its enabled variables on enabled devices; null when none",
  }),
  last_reading_at: instant.nullable().openapi({ description: "its newest reading of any variable" }),
  key_variables: z.array(keyVariable).openapi({
    description:
      "at most 4: those named by an enabled alert rule, then those polled, then others that report; by name within each",
  }),
});

const project = z.object({
  project_id: z.uuid(),
  name: z.string(),
  location: z.string().nullable(),
  timezone: z.string(),
  agent: z.object({
    status: z.enum(["online", "degraded", "offline", "none"]).openapi({
      description: "as GET /edge/agents/{project_id}/health says; none when the project never had an agent",
    }),
    last_seen: instant.nullable(),
    reasons: z.array(z.string()),
  }),
  production: z
    .object({
      unit: z.literal("bbl"),
      today: stretch.openapi({ description: "from 00:00 today (project zone) to now" }),
      yesterday: stretch.openapi({ description: "from 00:00 yesterday, over as long as today so far" }),
    })
    .openapi({ description: "computed by the ANH report's own code over the part of the day elapsed" }),
  completeness: z
    .object({
      from: instant.openapi({ description: "00:00 today, or when the project was created if later" }),
      to: instant,
      samples_received: z.number().int(),
      samples_expected: z.number().int(),
      ratio: z
        .number()
        .nullable()
        .openapi({ description: "received / expected (at most 1); null when nothing is polled" }),
    })
    .openapi({ description: "the ANH report's completeness over the part of today elapsed, not of 24 h" }),
  alarms: z.array(alarmEventSchema).openapi({
    description: "what GET /alarms lists: most severe first, then newest first",
  }),
  assets: z.array(asset).openapi({ description: "by name" }),
});

export const dashboardOverviewSchema = z
  .object({
    as_of: instant,
    sparkline: z.object({ from: instant, to: instant, bucket_seconds: z.number().int() }),
    projects: z.array(project).openapi({ description: "by name" }),
  })
  .openapi("DashboardOverview");
