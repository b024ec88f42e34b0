import { z } from "@hono/zod-openapi";
import { correctionFields, instantField, recordBaseFields, textField } from "../fields.ts";

const REASON_MAX = 500;

export const downtimeRequest = z
  .object({
    ...correctionFields,
    reason: textField(REASON_MAX).openapi({ example: "ESP trip on high motor temperature" }),
    started_at: instantField().openapi({ example: "2025-06-01T08:15:00-05:00" }),
    ended_at: instantField()
      .nullable()
      .optional()
      .openapi({
        description:
          "Omitted or null while the downtime lasts; not before started_at. To close an open " +
          "downtime, post a correction that supersedes it with ended_at set.",
      }),
  })
  .openapi("Downtime");

export const downtimeRecord = z
  .object({
    ...recordBaseFields,
    reason: z.string(),
    started_at: z.iso.datetime(),
    ended_at: z.iso.datetime().nullable(),
  })
  .openapi("DowntimeRecord");
