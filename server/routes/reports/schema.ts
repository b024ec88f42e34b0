import { z } from "@hono/zod-openapi";
import { uuidParam } from "../../http/openapi.ts";
import { anhReportContentSchema } from "../../services/reports/content-schema.ts";

export const ANH_TAG = "ANH reports";

export const reportIdParams = z.object({ id: uuidParam("id") });

/** ANHReport (spec §2) plus the version chain, generation and submission fields. */
export const anhReportSchema = z
  .object({
    id: z.uuid(),
    project_id: z.uuid(),
    report_date: z.string().openapi({ format: "date", example: "2025-03-10" }),
    period_start: z
      .string()
      .openapi({ format: "date-time", description: "00:00 of the day in the project's zone" }),
    period_end: z.string().openapi({ format: "date-time", description: "exclusive: 00:00 of the next day" }),
    status: z.enum(["pending", "generated", "submitted"]),
    hash_sha384: z
      .string()
      .nullable()
      .openapi({ description: "SHA-384 (hex) of the stored canonical bytes; null while pending" }),
    created_at: z.string().openapi({ format: "date-time" }),
    version: z
      .number()
      .int()
      .min(1)
      .openapi({ description: "1 for the day's first report, +1 per re-generation" }),
    supersedes: z.uuid().nullable().openapi({ description: "the previous version of this day's report" }),
    generated_at: z.string().nullable().openapi({ format: "date-time" }),
    submitted_at: z.string().nullable().openapi({ format: "date-time" }),
    submitted_by: z.uuid().nullable().openapi({ description: "user who submitted it" }),
  })
  .openapi("ANHReport");

export const anhReportWithContentSchema = anhReportSchema
  .extend({ content: anhReportContentSchema.nullable().openapi({ description: "null while pending" }) })
  .openapi("ANHReportWithContent");

export const listReportsQuery = z.object({
  project_id: z
    .uuid({ error: "must be a UUID" })
    .optional()
    .openapi({ param: { name: "project_id", in: "query" }, description: "only this project's reports" }),
});

export const generateReportRequest = z
  .object({
    project_id: z.uuid({ error: "must be a UUID" }),
    report_date: z
      .string({ error: "is required (YYYY-MM-DD)" })
      .regex(/^\d{4}-\d{2}-\d{2}$/, "must be a date written YYYY-MM-DD")
      .openapi({ format: "date", example: "2025-03-10" }),
  })
  .openapi("GenerateANHReportRequest");

export const previewQuery = z.object({
  project_id: z
    .uuid({ error: "is required and must be a UUID" })
    .openapi({ param: { name: "project_id", in: "query" } }),
  date: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, "must be a date written YYYY-MM-DD")
    .optional()
    .openapi({
      param: { name: "date", in: "query" },
      format: "date",
      description: "the production day; default: today in the project's time zone",
      example: "2025-03-10",
    }),
});

export const reportPreviewSchema = z
  .object({
    provisional: z
      .literal(true)
      .openapi({ description: "always true: not a report, no hash, nothing stored" }),
    project_id: z.uuid(),
    report_date: z.string().openapi({ format: "date", example: "2025-03-10" }),
    period_start: z.string().openapi({ format: "date-time" }),
    period_end: z.string().openapi({ format: "date-time", description: "exclusive" }),
    as_of: z.string().openapi({ format: "date-time", description: "when the content was read" }),
    content: anhReportContentSchema,
  })
  .openapi("ANHReportPreview");
