import { z } from "@hono/zod-openapi";
import { correctionFields, instantField, nonNegative, percentage, recordBaseFields } from "../fields.ts";

/*
 * API gravity = 141.5 / SG(60 °F) − 131.5. Crude oils and condensates lie between about 5 °API
 * (extra-heavy) and 80 °API; outside 0–100 a value is a typing or unit error, not a crude.
 */
export const API_GRAVITY_MIN = 0;
export const API_GRAVITY_MAX = 100;

export const labResultRequest = z
  .object({
    ...correctionFields,
    sample_date: instantField().openapi({ example: "2025-06-01T07:30:00Z" }),
    api_gravity: z
      .number("must be a finite number")
      .min(API_GRAVITY_MIN, `must be between ${API_GRAVITY_MIN} and ${API_GRAVITY_MAX} °API`)
      .max(API_GRAVITY_MAX, `must be between ${API_GRAVITY_MIN} and ${API_GRAVITY_MAX} °API`)
      .openapi({ description: "Degrees API at 60 °F", example: 18.4 }),
    bsw_pct: percentage()
      .nullable()
      .optional()
      .openapi({ description: "Basic sediment and water, 0–100 %", example: 0.8 }),
    viscosity_cp: nonNegative().nullable().optional().openapi({ description: "Centipoise", example: 420 }),
  })
  .openapi("LabResult");

export const labResultRecord = z
  .object({
    ...recordBaseFields,
    sample_date: z.iso.datetime(),
    api_gravity: z.number(),
    bsw_pct: z.number().nullable(),
    viscosity_cp: z.number().nullable(),
  })
  .openapi("LabResultRecord");
