import { z } from "@hono/zod-openapi";
import { MAX_READING_MAGNITUDE, NO_NUL_MESSAGE, withoutNul } from "../../../shared/telemetry-limits.ts";
import { HISTORY_INTERVALS } from "../../services/telemetry/history.ts";
import {
  LATEST_LIMIT_DEFAULT,
  LATEST_LIMIT_MAX,
  MAX_VARIABLE_FILTERS,
} from "../../services/telemetry/limits.ts";

export const TELEMETRY_TAG = "Telemetry";

const dateTime = (description: string) =>
  z.iso
    .datetime({
      offset: true,
      error: "must be an ISO 8601 date-time with a UTC offset (e.g. 2025-01-31T12:00:00Z)",
    })
    .openapi({ description, example: "2025-01-31T12:00:00Z" });

const variableName = z
  .string({ error: "is required (a string)" })
  .min(1, "must not be empty")
  .max(128, "must be at most 128 characters")
  .refine(withoutNul, NO_NUL_MESSAGE);

export const telemetryReadingSchema = z
  .object({
    variable: variableName,
    // zod rejects NaN and ±Infinity (JSON's 1e999 parses to Infinity); the bound keeps sums finite.
    value: z
      .number({ error: "must be a finite number" })
      .min(-MAX_READING_MAGNITUDE, "must be at least -1e15")
      .max(MAX_READING_MAGNITUDE, "must be at most 1e15"),
    unit: z
      .string({ error: "must be a string" })
      .max(32, "must be at most 32 characters")
      .refine(withoutNul, NO_NUL_MESSAGE)
      .optional(),
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

export type TelemetryReadingBody = z.output<typeof telemetryReadingSchema>;
export type TelemetryPayloadBody = z.output<typeof telemetryPayloadSchema>;
export type TelemetryBatchBody = z.output<typeof telemetryBatchSchema>;

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
    bucket: z.iso
      .datetime()
      .openapi({ description: "start of the window (5 minutes unless `interval` says otherwise), UTC" }),
    variable: z.string(),
    avg_value: z.number(),
    min_value: z.number(),
    max_value: z.number(),
  })
  .openapi("TelemetryHistoryItem");

export const assetParams = z.object({
  asset_id: z.uuid({ error: "must be a UUID" }).openapi({ param: { name: "asset_id", in: "path" } }),
});

const limitError = `must be an integer from 1 to ${LATEST_LIMIT_MAX}`;

/** `variable=a&variable=b`: the query validator passes one value as a string, several as an array. */
const variableFilter = z
  .union([
    variableName,
    z.array(variableName).max(MAX_VARIABLE_FILTERS, `at most ${MAX_VARIABLE_FILTERS} values`),
  ])
  .optional()
  .transform((v) => (v === undefined ? undefined : typeof v === "string" ? [v] : v))
  .openapi({
    param: { name: "variable", in: "query", style: "form", explode: true },
    type: "array",
    items: { type: "string", minLength: 1, maxLength: 128 },
    maxItems: MAX_VARIABLE_FILTERS,
    description:
      "only these variables (repeatable, up to 100). A name the asset has no readings for matches nothing: " +
      "the answer is what matches, possibly empty, not a 400 (any variable name may be sent as telemetry).",
  });

export const latestQuery = z.object({
  // No zod default: JSON applies 100, CSV honours only an explicit limit (see routes/telemetry/latest.ts).
  limit: z.coerce
    .number({ error: limitError })
    .int(limitError)
    .min(1, limitError)
    .max(LATEST_LIMIT_MAX, limitError)
    .optional()
    .openapi({
      param: { name: "limit", in: "query" },
      description:
        `how many payloads (distinct timestamps), newest first; 1 to ${LATEST_LIMIT_MAX}. JSON: default ` +
        `${LATEST_LIMIT_DEFAULT}. CSV: every reading in [from, to] unless given; given, the newest \`limit\` timestamps`,
      default: LATEST_LIMIT_DEFAULT,
      example: LATEST_LIMIT_DEFAULT,
    }),
  from: dateTime("only readings at or after this instant")
    .optional()
    .openapi({ param: { name: "from", in: "query" } }),
  to: dateTime("only readings at or before this instant")
    .optional()
    .openapi({ param: { name: "to", in: "query" } }),
  variable: variableFilter,
  format: z
    .enum(["json", "csv"], { error: "must be json or csv" })
    .optional()
    .openapi({
      param: { name: "format", in: "query" },
      description: "json (default) or csv; without it, `Accept: text/csv` asks for CSV",
    }),
});

export const historyQuery = z.object({
  from: dateTime("start of the range; default: 24 hours before `to`")
    .optional()
    .openapi({ param: { name: "from", in: "query" } }),
  to: dateTime("end of the range; default: now")
    .optional()
    .openapi({ param: { name: "to", in: "query" } }),
  interval: z
    .enum(HISTORY_INTERVALS, { error: `must be one of ${HISTORY_INTERVALS.join(", ")}` })
    .optional()
    .openapi({
      param: { name: "interval", in: "query" },
      description: "window width: 5m (default, spec §8), 1h, or 1d (UTC days)",
      default: "5m",
    }),
  variable: variableFilter,
});
