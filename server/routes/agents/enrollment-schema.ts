import { z } from "@hono/zod-openapi";
import { enrollResponseSchema } from "../../../shared/enrollment.ts";
import { ENROLLMENT_CODE_MAX_TTL_SECONDS } from "../../services/agents/enrollment-codes.ts";

const MIN_TTL_SECONDS = 60;

export const codeIdParams = z.object({
  id: z.uuid("id must be a UUID").openapi({ param: { name: "id", in: "path" } }),
  code_id: z.uuid("code_id must be a UUID").openapi({ param: { name: "code_id", in: "path" } }),
});

// Strict: every field is optional, so an unknown one is a mistake worth a 400, not a 7-day code.
export const newEnrollmentCodeBody = z
  .strictObject({
    ttl_seconds: z
      .number()
      .int(`must be an integer from ${MIN_TTL_SECONDS} to ${ENROLLMENT_CODE_MAX_TTL_SECONDS}`)
      .min(
        MIN_TTL_SECONDS,
        `must be an integer from ${MIN_TTL_SECONDS} to ${ENROLLMENT_CODE_MAX_TTL_SECONDS}`,
      )
      .max(
        ENROLLMENT_CODE_MAX_TTL_SECONDS,
        `must be an integer from ${MIN_TTL_SECONDS} to ${ENROLLMENT_CODE_MAX_TTL_SECONDS}`,
      )
      .optional()
      .openapi({ description: "how long the code is valid; 7 days (604800) when absent", example: 86400 }),
  })
  .openapi("NewEnrollmentCode");

export const issuedEnrollmentCodeSchema = z
  .object({
    id: z.uuid(),
    code: z.string().openapi({
      description: "Shown once: only its SHA-256 is stored. The agent config's `enrollment_code`.",
      example: "cen_Yt3…",
    }),
    expires_at: z.iso.datetime(),
  })
  .openapi("IssuedEnrollmentCode");

export const enrollmentCodeSchema = z
  .object({
    id: z.uuid(),
    purpose: z.enum(["manual", "linux_script", "msi"]).openapi({
      description: "manual: issued through this API; linux_script and msi: carried by an installer",
    }),
    created_at: z.iso.datetime(),
    expires_at: z.iso.datetime(),
    used_at: z.iso.datetime().nullable(),
    revoked_at: z.iso.datetime().nullable(),
    status: z.enum(["active", "used", "expired", "revoked"]),
  })
  .openapi("EnrollmentCode");

export const enrollBody = z
  .object({
    code: z.string().min(1, "is required").max(200, "must be at most 200 characters").openapi({
      description: "the enrollment code from the installer or the agent config",
      example: "cen_Yt3…",
    }),
    project_id: z.uuid("project_id must be a UUID").optional().openapi({
      description:
        "the project the agent is configured for: a code of another project is refused before it is spent",
    }),
    hostname: z
      .string()
      .trim()
      .min(1, "must not be empty")
      .max(253, "must be at most 253 characters")
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are refused
      .refine((h) => !/[\x00-\x1f\x7f]/.test(h), "must not contain control characters")
      .optional()
      .openapi({ description: "the enrolling machine's name, kept in the audit log", example: "rig-7" }),
  })
  .openapi("EnrollRequest");

export const enrollmentSchema = enrollResponseSchema.openapi("Enrollment");
