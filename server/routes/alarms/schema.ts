import { z } from "@hono/zod-openapi";
import {
  ALARM_SEVERITIES,
  ALARM_TYPES,
  alarmSeveritySchema,
  alarmTypeSchema,
} from "../../../shared/alarms/rule.ts";

export const HISTORY_LIMIT_DEFAULT = 1000;
export const HISTORY_LIMIT_MAX = 10_000;

const alarmType = alarmTypeSchema.openapi({ example: "high" });

export const alarmEventSchema = z
  .object({
    id: z.uuid(),
    project_id: z.uuid(),
    asset_id: z.uuid().nullable(),
    rule_id: z.uuid().nullable().openapi({ description: "null for comm_loss and once the rule is deleted" }),
    variable: z.string().openapi({ description: '"comm" for comm_loss alarms' }),
    value: z
      .number()
      .openapi({ description: "the reading that raised it; seconds of silence for comm_loss" }),
    alarm_type: alarmType,
    severity: alarmSeveritySchema,
    message: z.string(),
    acknowledged: z.boolean(),
    timestamp: z.iso.datetime().openapi({ description: "when it was raised (the reading's time)" }),
    active: z.boolean().openapi({ description: "false once returned to normal" }),
    returned_at: z.iso.datetime().nullable(),
    acknowledged_at: z.iso.datetime().nullable(),
    acknowledged_by: z.uuid().nullable().openapi({ description: "user id" }),
    source: z.enum(["server", "agent"]).openapi({ description: "whose evaluator raised it" }),
  })
  .openapi("AlarmEvent");

export const alarmHistoryEntrySchema = z
  .object({
    id: z.uuid(),
    alarm_id: z.uuid(),
    event: z.enum(["raised", "cleared", "acknowledged"]),
    at: z.iso.datetime(),
    value: z.number().nullable().openapi({
      description:
        "the reading that raised or returned it (seconds of silence for comm_loss); null otherwise",
    }),
    user_id: z
      .uuid()
      .nullable()
      .openapi({ description: "who acknowledged, or changed the rule that cleared it" }),
    project_id: z.uuid(),
    asset_id: z.uuid().nullable(),
    rule_id: z.uuid().nullable(),
    variable: z.string(),
    alarm_type: alarmType,
    severity: alarmSeveritySchema,
    message: z.string(),
  })
  .openapi("AlarmHistoryEntry");

const projectId = z
  .uuid({ error: "must be a UUID" })
  .openapi({ param: { name: "project_id", in: "query", required: true } });

export const alarmsQuery = z.object({ project_id: projectId });

const instant = (name: string, description: string) =>
  z.iso
    .datetime({ offset: true, error: "must be an ISO 8601 date-time" })
    .optional()
    .openapi({ param: { name, in: "query" }, description });

export const historyQuery = z
  .object({
    project_id: projectId,
    from: instant("from", "earliest event time, inclusive"),
    to: instant("to", "latest event time, inclusive"),
    asset_id: z
      .uuid({ error: "must be a UUID" })
      .optional()
      .openapi({ param: { name: "asset_id", in: "query" }, description: "only this asset's alarms" }),
    severity: z
      .enum(ALARM_SEVERITIES, { error: `must be one of ${ALARM_SEVERITIES.join(", ")}` })
      .optional()
      .openapi({ param: { name: "severity", in: "query" }, description: "only alarms of this severity" }),
    alarm_type: z
      .enum(ALARM_TYPES, { error: `must be one of ${ALARM_TYPES.join(", ")}` })
      .optional()
      .openapi({ param: { name: "alarm_type", in: "query" }, description: "only alarms of this type" }),
    format: z
      .enum(["json", "csv"], { error: "must be json or csv" })
      .optional()
      .openapi({
        param: { name: "format", in: "query" },
        description: "json (default) or csv; without it, `Accept: text/csv` asks for CSV",
      }),
    limit: z.coerce
      .number({ error: "must be a number" })
      .int("must be an integer")
      .min(1, `must be between 1 and ${HISTORY_LIMIT_MAX}`)
      .max(HISTORY_LIMIT_MAX, `must be between 1 and ${HISTORY_LIMIT_MAX}`)
      .default(HISTORY_LIMIT_DEFAULT)
      .openapi({
        param: { name: "limit", in: "query" },
        description: "at most this many events, the newest",
      }),
  })
  .refine((q) => !q.from || !q.to || Date.parse(q.from) <= Date.parse(q.to), {
    path: ["from"],
    message: "must not be after to",
  });

export const alarmIdParams = z.object({
  id: z.uuid({ error: "must be a UUID" }).openapi({ param: { name: "id", in: "path" } }),
});
