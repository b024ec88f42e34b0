import { z } from "@hono/zod-openapi";
import { alarmConditionSchema, alarmSeveritySchema } from "../../../../shared/alarms/rule.ts";
import { nameField } from "../../field/field-schema.ts";

/** Longest on-delay: one day. A longer "delay" is a report, not an alarm. */
export const DELAY_SECONDS_MAX = 86_400;

const condition = alarmConditionSchema.openapi({
  description: "gt, gte, eq raise a high alarm (critical_high when severity is critical); lt, lte a low one",
  example: "gt",
});
const severity = alarmSeveritySchema.openapi({ example: "warning" });

export const createAlertRuleRequest = z
  .object({
    project_id: z.uuid({ error: "must be a UUID" }),
    name: nameField().openapi({ example: "Presión de cabeza alta" }),
    variable_alias: nameField().openapi({
      description: "the telemetry variable the rule watches, on every asset of the project that reports it",
      example: "presion_cabeza",
    }),
    condition,
    threshold: z.number({ error: "must be a number" }).openapi({ example: 1500 }),
    severity,
    deadband: z
      .number({ error: "must be a number" })
      .min(0, "must not be negative")
      .optional()
      .openapi({
        description:
          "Hysteresis for returning to normal: gt clears at value <= threshold - deadband, gte below it; " +
          "lt clears at value >= threshold + deadband, lte above it; eq when |value - threshold| > deadband.",
        default: 0,
      }),
    delay_seconds: z
      .number({ error: "must be a number" })
      .int("must be an integer")
      .min(0, "must not be negative")
      .max(DELAY_SECONDS_MAX, `must be at most ${DELAY_SECONDS_MAX}`)
      .optional()
      .openapi({
        description:
          "On-delay: the condition must hold this long (on reading timestamps) before the alarm is raised",
        default: 0,
      }),
    is_enabled: z.boolean({ error: "must be a boolean" }).optional().openapi({ default: true }),
  })
  .openapi("CreateAlertRuleRequest");

export const alertRuleSchema = z
  .object({
    id: z.uuid(),
    project_id: z.uuid(),
    name: z.string(),
    variable_alias: z.string(),
    condition,
    threshold: z.number(),
    severity,
    is_enabled: z.boolean(),
    deadband: z.number(),
    delay_seconds: z.number().int(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .openapi("AlertRule");

export const projectQuery = z.object({
  project_id: z
    .uuid({ error: "must be a UUID" })
    .openapi({ param: { name: "project_id", in: "query", required: true } }),
});

export const ruleIdParams = z.object({
  id: z.uuid({ error: "must be a UUID" }).openapi({ param: { name: "id", in: "path" } }),
});
