import { z } from "zod";
import type { $ZodRawIssue } from "zod/v4/core";

const TYPE_NAMES: Record<string, string> = {
  string: "a string",
  number: "a number",
  int: "an integer",
  bigint: "an integer",
  boolean: "a boolean",
  object: "an object",
  array: "an array",
  date: "a date",
  null: "null",
};

const FORMATS: Record<string, string> = {
  email: "must be a valid email address",
  uuid: "must be a UUID",
  guid: "must be a UUID",
  datetime: "must be an ISO 8601 date-time",
  date: "must be a date (YYYY-MM-DD)",
  time: "must be a time (HH:MM:SS)",
  url: "must be a URL",
  regex: "has an invalid format",
};

const typeName = (expected: string): string => TYPE_NAMES[expected] ?? expected;

type Bound = { origin: string; inclusive?: boolean; exact?: boolean };

function sizeMessage(issue: Bound, limit: number | bigint, side: "least" | "most"): string {
  const n = Number(limit);
  if (issue.origin === "string" || issue.origin === "array" || issue.origin === "set") {
    const unit = issue.origin === "string" ? "characters" : "items";
    if (side === "least" && n === 1 && !issue.exact) return "must not be empty";
    if (issue.exact) return `must have exactly ${n} ${unit}`;
    return issue.origin === "string"
      ? `must be at ${side} ${n} ${unit}`
      : `must have at ${side} ${n} ${unit}`;
  }
  if (issue.inclusive === false) return `must be ${side === "least" ? "greater" : "less"} than ${n}`;
  return `must be at ${side} ${n}`;
}

/**
 * The wording of every validation message a schema did not choose itself: "is required",
 * "must be a string", "must be at most 64 characters", "must be one of a, b". The field path is
 * put in front by describeZodError (validation.ts).
 */
export function issueMessage(issue: $ZodRawIssue): string | undefined {
  switch (issue.code) {
    case "invalid_type":
      return issue.input === undefined ? "is required" : `must be ${typeName(issue.expected)}`;
    case "too_small":
      return sizeMessage(issue, issue.minimum, "least");
    case "too_big":
      return sizeMessage(issue, issue.maximum, "most");
    case "invalid_format":
      return FORMATS[issue.format] ?? `must be a valid ${issue.format}`;
    case "invalid_value":
      return issue.values.length === 1
        ? `must be ${JSON.stringify(issue.values[0])}`
        : `must be one of ${issue.values.map(String).join(", ")}`;
    case "not_multiple_of":
      return `must be a multiple of ${Number(issue.divisor)}`;
    case "unrecognized_keys":
      return `has unknown field${issue.keys.length === 1 ? "" : "s"} ${issue.keys.join(", ")}`;
    case "invalid_key":
      return "has an invalid key";
    case "invalid_element":
      return "has an invalid entry";
    default:
      return "is not valid";
  }
}

/**
 * zod's global error map: it applies only where a schema chose no message of its own, so every
 * route's messages share one wording. Installed by createApp (app.ts); idempotent.
 */
export function installValidationMessages(): void {
  z.config({ customError: issueMessage });
}
