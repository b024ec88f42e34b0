import { z } from "@hono/zod-openapi";
import {
  correctionFields,
  instantField,
  nonNegative,
  percentage,
  recordBaseFields,
  uuidField,
} from "../fields.ts";

export const wellTestRequest = z
  .object({
    ...correctionFields,
    asset_id: uuidField().openapi({ description: "A well of the same project" }),
    test_date: instantField().openapi({ example: "2025-06-01T10:00:00Z" }),
    oil_rate_bopd: nonNegative()
      .nullable()
      .optional()
      .openapi({ description: "Barrels of oil per day", example: 412.3 }),
    water_cut_pct: percentage()
      .nullable()
      .optional()
      .openapi({ description: "Water cut, 0–100 %", example: 37.5 }),
    gor_scf_bbl: nonNegative()
      .nullable()
      .optional()
      .openapi({ description: "Gas-oil ratio, standard cubic feet per barrel", example: 350 }),
  })
  .openapi("WellTest");

export const wellTestRecord = z
  .object({
    ...recordBaseFields,
    asset_id: z.uuid(),
    test_date: z.iso.datetime(),
    oil_rate_bopd: z.number().nullable(),
    water_cut_pct: z.number().nullable(),
    gor_scf_bbl: z.number().nullable(),
  })
  .openapi("WellTestRecord");
