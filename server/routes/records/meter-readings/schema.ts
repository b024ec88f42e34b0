import { z } from "@hono/zod-openapi";
import {
  correctionFields,
  instantField,
  nonNegative,
  optionalText,
  recordBaseFields,
  uuidField,
} from "../fields.ts";

const UNIT_MAX = 32;

export const meterReadingRequest = z
  .object({
    ...correctionFields,
    meter_id: uuidField().openapi({ description: "An asset of type meter in the same project" }),
    reading_value: nonNegative().openapi({
      description: "The meter's registered quantity (totaliser); never negative",
      example: 1843210.4,
    }),
    read_at: instantField().openapi({ example: "2025-06-01T06:00:00Z" }),
    unit: optionalText(UNIT_MAX).openapi({ example: "bbl" }),
  })
  .openapi("MeterReading");

export const meterReadingRecord = z
  .object({
    ...recordBaseFields,
    meter_id: z.uuid(),
    reading_value: z.number(),
    read_at: z.iso.datetime(),
    unit: z.string().nullable(),
  })
  .openapi("MeterReadingRecord");
