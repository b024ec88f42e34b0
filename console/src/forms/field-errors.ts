import { ApiError } from "../api/api-error.ts";

/** The API's 400 split into the messages of the fields a form shows, and the rest. */
export type FieldErrors = { fields: Map<string, string>; other: string[] };

/**
 * A 400 names every bad field in its message, "field: message; other.field: message"
 * (server/http/validation.ts, and describeProblems in shared/field/protocols/field-problem.ts for
 * the rules that depend on the device's protocol). Parts naming a field of `known` go beside that
 * field; the rest ("body: …", a 409's sentence) stay for the form as a whole. A part is cut only
 * where the next one starts with a field name, so a message holding "; " stays whole.
 */
export function fieldErrors(message: string, known: readonly string[]): FieldErrors {
  const fields = new Map<string, string>();
  const other: string[] = [];
  for (const part of message.split(/; (?=[\w.]+: )/)) {
    const match = /^([\w.]+): ([\s\S]*)$/.exec(part);
    const field = match?.[1];
    const text = match?.[2];
    if (field === undefined || text === undefined || !known.includes(field)) {
      if (part.trim() !== "") other.push(part);
      continue;
    }
    const before = fields.get(field);
    fields.set(field, before === undefined ? text : `${before}; ${text}`);
  }
  return { fields, other };
}

/** A refused save as the form shows it: the API's 400 by field, anything else as a whole. */
export function refusalOf(err: unknown, known: readonly string[]): FieldErrors {
  if (err instanceof ApiError) return fieldErrors(err.message, known);
  return { fields: new Map(), other: [err instanceof Error ? err.message : String(err)] };
}
