import { z } from "@hono/zod-openapi";
import { RECORD_LIST_DEFAULT, RECORD_LIST_MAX } from "../../services/records/list-filter.ts";

export const RECORDS_TAG = "Operations (ANH 0651)";

export const NOTE_MAX = 2000;

/** C0 control characters (other than tab and line breaks) and DEL corrupt CSV and report exports. */
function hasControlCharacters(value: string): boolean {
  for (const ch of value) {
    const code = ch.charCodeAt(0);
    if (ch === "\t" || ch === "\n" || ch === "\r") continue;
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

/** An ISO 8601 instant with an explicit offset: a bare local time is ambiguous across production days. */
export const instantField = () =>
  z.iso.datetime({ offset: true, error: "must be an ISO 8601 date-time with Z or an offset" });

export const uuidField = () => z.uuid("must be a UUID");

/**
 * Above every real volume, rate or totaliser, yet below 2^53 (a totaliser keeps its integer
 * digits). Unbounded, two values near 1.8e308 add up to Infinity in the day's report totals, which
 * I-JSON (RFC 7493 §2.2) and so the canonical, hashed report cannot carry.
 */
export const QUANTITY_MAX = 1e15;

/** A quantity that cannot be negative (volumes, rates, viscosities). */
export const nonNegative = () =>
  z
    .number("must be a finite number")
    .min(0, "must be 0 or more")
    .max(QUANTITY_MAX, `must be at most ${QUANTITY_MAX.toExponential()}`);

export const percentage = () =>
  z
    .number("must be a finite number")
    .min(0, "must be between 0 and 100")
    .max(100, "must be between 0 and 100");

/** Required free text, trimmed. */
export const textField = (max: number) =>
  z
    .string("must be a string")
    .trim()
    .min(1, "must not be empty")
    .max(max, `must be at most ${max} characters`)
    .refine((v) => !hasControlCharacters(v), "must not contain control characters");

export const optionalText = (max: number) =>
  z
    .string("must be a string")
    .trim()
    .max(max, `must be at most ${max} characters`)
    .refine((v) => !hasControlCharacters(v), "must not contain control characters")
    .nullable()
    .optional();

/** Request fields of every record type besides its own: the project and the correction link. */
export const correctionFields = {
  project_id: uuidField().openapi({ example: "7c3c2a4e-2f0b-4d7e-9a51-3f7e0b1c2d3e" }),
  supersedes: uuidField()
    .nullable()
    .optional()
    .openapi({
      description:
        "Id of the record of the same type and project that this one corrects (404 if unknown, " +
        "409 if it is already superseded). Records are never edited or deleted.",
    }),
  correction_reason: optionalText(NOTE_MAX).openapi({
    description: "Why the correction was made: required with `supersedes`, refused without it.",
  }),
};

/** Response fields of every record type. */
export const recordBaseFields = {
  id: z.uuid(),
  project_id: z.uuid(),
  supersedes: z.uuid().nullable(),
  correction_reason: z.string().nullable(),
  superseded_by: z
    .uuid()
    .nullable()
    .openapi({ description: "Id of the record that corrects this one; null while it is current" }),
  created_by: z.uuid().nullable().openapi({ description: "User who entered the record" }),
  created_at: z.iso.datetime(),
};

/** Query of every record list. */
export const recordListQuery = z.object({
  project_id: uuidField()
    .optional()
    .openapi({ description: "One project (404 if not one of the caller's); default: all of the caller's" }),
  from: instantField().optional().openapi({ description: "Inclusive lower bound on the record's instant" }),
  to: instantField().optional().openapi({ description: "Exclusive upper bound on the record's instant" }),
  limit: z.coerce
    .number("must be a number")
    .int("must be an integer")
    .min(1, `must be between 1 and ${RECORD_LIST_MAX}`)
    .max(RECORD_LIST_MAX, `must be between 1 and ${RECORD_LIST_MAX}`)
    .optional()
    .openapi({ description: `Most records returned, newest first (default ${RECORD_LIST_DEFAULT})` }),
});

export const LIST_DESCRIPTION =
  "Newest first. Corrections and the records they supersede are both listed; `superseded_by` " +
  "marks the replaced ones. Requires records:read (every role). Without project_id: every " +
  "project of the caller.";

export const CREATE_DESCRIPTION =
  "Append-only (API MPMS 21.1 §5): records are never edited or deleted; a correction is a new " +
  "record with `supersedes` and `correction_reason`. The audit log gets an entry in the same " +
  "transaction. Requires records:write (operador and above). 404 when project_id is not one of " +
  "the caller's.";
