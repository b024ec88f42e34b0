import { z } from "@hono/zod-openapi";
import { MAX_READING_MAGNITUDE } from "../../../shared/telemetry-limits.ts";
import { LATEST_LIMIT_DEFAULT, LATEST_LIMIT_MAX } from "../../services/telemetry/limits.ts";

export const TELEMETRY_TAG = "Telemetry";

const dateTime = (description: string) =>
  z.iso
    .datetime({
      offset: true,
      error: "must be an ISO 8601 date-time with a UTC offset (e.g. 2025-01-31T12:00:00Z)",
    })
    .openapi({ description, example: "2025-01-31T12:00:00Z" });

export const telemetryReadingSchema = z
  .object({
    variable: z
      .string({ error: "is required (a string)" })
      .min(1, "must not be empty")
      .max(128, "must be at most 128 characters"),
    // zod rejects NaN and ±Infinity (JSON's 1e999 parses to Infinity); the bound keeps sums finite.
    value: z
      .number({ error: "must be a finite number" })
      .min(-MAX_READING_MAGNITUDE, "must be at least -1e15")
      .max(MAX_READING_MAGNITUDE, "must be at most 1e15"),
    unit: z.string({ error: "must be a string" }).max(32, "must be at most 32 characters").optional(),
  })
  .openapi("TelemetryReading");

export const telemetryPayloadSchema = z
  .object({
    asset_id: z.uuid({ error: "must be a UUID" }),
    timestamp: dateTime(
      "When the readings were taken; default: when the server receives them. At most 5 minutes ahead of the server clock.",
    ).optional(),
    readings: z
      .array(telemetryReadingSchema, { error: "is required (an array of readings)" })
      .min(1, "must contain at least one reading"),
  })
  .superRefine((payload, ctx) => {
    // One value per variable and timestamp: a repeated variable would make the payload ambiguous.
    const seen = new Set<string>();
    payload.readings.forEach((r, i) => {
      if (seen.has(r.variable)) {
        ctx.addIssue({
          code: "custom",
          path: ["readings", i, "variable"],
          message: `"${r.variable}" appears more than once in this payload`,
        });
      }
      seen.add(r.variable);
    });
  })
  .openapi("TelemetryPayload", {
    description: "Readings of one asset at one instant (spec §2). Up to 10,000 readings per request.",
  });

export const telemetryBatchSchema = z
  .object({
    items: z
      .array(telemetryPayloadSchema, { error: "is required (an array of TelemetryPayload)" })
      .min(1, "must contain at least one payload"),
  })
  .openapi("TelemetryBatch", {
    description: "Several payloads stored together or not at all; up to 10,000 readings in total.",
  });

export const ingestResultSchema = z
  .object({
    accepted: z.number().int().openapi({ description: "readings stored" }),
    duplicates: z.number().int().openapi({
      description:
        "readings ignored because their asset, variable and millisecond were already stored (first write wins)",
    }),
  })
  .openapi("TelemetryIngestResult");

export const historyItemSchema = z
  .object({
    bucket: z.iso.datetime().openapi({ description: "start of the 5-minute window (UTC)" }),
    variable: z.string(),
    avg_value: z.number(),
    min_value: z.number(),
    max_value: z.number(),
  })
  .openapi("TelemetryHistoryItem");

export const assetParams = z.object({
  asset_id: z.uuid({ error: "must be a UUID" }).openapi({ param: { name: "asset_id", in: "path" } }),
});

export const latestQuery = z.object({
  limit: z.coerce
    .number({ error: `must be an integer from 1 to ${LATEST_LIMIT_MAX}` })
    .int(`must be an integer from 1 to ${LATEST_LIMIT_MAX}`)
    .min(1, `must be an integer from 1 to ${LATEST_LIMIT_MAX}`)
    .max(LATEST_LIMIT_MAX, `must be an integer from 1 to ${LATEST_LIMIT_MAX}`)
    .default(LATEST_LIMIT_DEFAULT)
    .openapi({
      param: { name: "limit", in: "query" },
      description: `how many payloads (distinct timestamps), newest first; 1 to ${LATEST_LIMIT_MAX}`,
      example: LATEST_LIMIT_DEFAULT,
    }),
});

export const historyQuery = z.object({
  from: dateTime("start of the range; default: 24 hours before `to`")
    .optional()
    .openapi({ param: { name: "from", in: "query" } }),
  to: dateTime("end of the range; default: now")
    .optional()
    .openapi({ param: { name: "to", in: "query" } }),
});
