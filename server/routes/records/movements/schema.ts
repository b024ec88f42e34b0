import { z } from "@hono/zod-openapi";
import {
  correctionFields,
  instantField,
  NOTE_MAX,
  nonNegative,
  optionalText,
  recordBaseFields,
} from "../fields.ts";

export const MOVEMENT_TYPES = ["production", "transfer", "injection", "flare", "loss"] as const;

const movementType = z
  .enum(MOVEMENT_TYPES, { error: `must be one of ${MOVEMENT_TYPES.join(", ")}` })
  .openapi({ example: "production" });

export const movementRequest = z
  .object({
    ...correctionFields,
    movement_type: movementType,
    volume_bbls: nonNegative().openapi({ description: "Barrels; never negative", example: 1250.5 }),
    timestamp: instantField().openapi({ example: "2025-06-01T05:00:00Z" }),
    notes: optionalText(NOTE_MAX),
  })
  .openapi("Movement");

export const movementRecord = z
  .object({
    ...recordBaseFields,
    movement_type: movementType,
    volume_bbls: z.number(),
    timestamp: z.iso.datetime(),
    notes: z.string().nullable(),
  })
  .openapi("MovementRecord");
