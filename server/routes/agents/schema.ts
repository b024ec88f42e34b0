import { z } from "@hono/zod-openapi";

export const projectIdParams = z.object({
  id: z.uuid("id must be a UUID").openapi({ param: { name: "id", in: "path" } }),
});

export const projectIdParam2 = z.object({
  project_id: z.uuid("project_id must be a UUID").openapi({ param: { name: "project_id", in: "path" } }),
});

export const agentTokenResponse = z
  .object({
    agent_token: z.string().openapi({ description: "Shown once. Only its hash is stored." }),
    mqtt_username: z.string().openapi({ example: "agent:2b0c…" }),
  })
  .openapi("AgentToken");

export const deploymentSchema = z
  .object({
    id: z.uuid(),
    project_id: z.uuid(),
    version: z.number().int(),
    config_hash: z.string().openapi({ description: "SHA-256 of the RFC 8785 canonical configuration" }),
    status: z.enum(["pending", "applied", "failed"]),
    error: z.string().nullable(),
    created_by: z.uuid().nullable(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
    devices: z.number().int(),
    variables: z.number().int(),
    alert_rules: z.number().int(),
  })
  .openapi("Deployment");

const level = z.enum(["debug", "info", "warn", "error"]);

export const logEntrySchema = z
  .object({
    id: z.uuid(),
    project_id: z.uuid(),
    level,
    category: z.string(),
    message: z.string(),
    timestamp: z.iso.datetime(),
  })
  .openapi("AgentLogEntry");

export const logsQuery = z.object({
  project_id: z.uuid("project_id must be a UUID"),
  level: level.optional().openapi({ description: "entries at or above this level" }),
  limit: z.coerce
    .number()
    .int("limit must be an integer")
    .min(1, "limit must be 1..1000")
    .max(1000, "limit must be 1..1000")
    .default(100),
});

export const newLogBody = z
  .object({
    project_id: z.uuid("project_id must be a UUID"),
    level,
    message: z
      .string()
      .max(4000, "must be at most 4000 characters")
      .refine((m) => m.trim().length > 0, "is required")
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters (but tab and newline) are refused
      .refine((m) => !/[\x00-\x08\x0b-\x1f\x7f]/.test(m), "must not contain control characters"),
    category: z
      .string()
      .trim()
      .min(1, "must not be empty")
      .max(64, "must be at most 64 characters")
      .regex(/^[\w.:-]+$/, "letters, digits, _ . : - only")
      .optional(),
  })
  .openapi("NewAgentLogEntry");

const deviceHealth = z.object({
  device_id: z.uuid(),
  name: z.string(),
  state: z.enum(["ok", "failing", "disabled", "unsupported"]),
  last_error: z.string().nullish(),
  last_read_at: z
    .string()
    .nullish()
    .openapi({ description: "when the agent last read the device, as of its latest heartbeat (every 15 s)" }),
  last_reading_at: z.iso.datetime().nullable().openapi({
    description:
      "the newest reading of the device's variables the server holds (null: none yet); newer than last_read_at for a device polled faster than the heartbeat",
  }),
});

export const healthSchema = z
  .object({
    status: z.enum(["online", "degraded", "offline"]),
    last_seen: z.iso.datetime(),
    uptime_seconds: z.number().int(),
    reasons: z.array(z.string()).openapi({ description: "why the agent is not online, in English" }),
    reason_codes: z
      .array(
        z.discriminatedUnion("code", [
          z.object({ code: z.literal("went_offline") }),
          z.object({ code: z.literal("no_heartbeat"), seconds: z.number().int() }),
          z.object({
            code: z.literal("device"),
            device: z.string(),
            state: z.string(),
            error: z
              .string()
              .nullable()
              .openapi({ description: "the driver's message, as the agent sent it" }),
          }),
          z.object({ code: z.literal("backlog"), minutes: z.number().int(), points: z.number().int() }),
        ]),
      )
      .openapi({
        description: "the same reasons as codes and figures, for a client to word in its language",
      }),
    agent_version: z.string().nullable(),
    devices: z.array(deviceHealth),
    buffer: z
      .object({
        batches: z.number().int(),
        points: z.number().int(),
        oldest_ts: z.number().int().nullable(),
        dropped_batches: z.number().int(),
      })
      .nullable(),
    config: z
      .object({ version: z.number().int().nullable(), hash: z.string().nullable() })
      .nullable()
      .openapi({
        description:
          "The configuration the agent runs, from its heartbeat (nulls before its first deployment). Compare with config_status on GET /edge/projects/{id}.",
      }),
  })
  .openapi("AgentHealth");
