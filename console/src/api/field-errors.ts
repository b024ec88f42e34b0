import { ApiError } from "./api-error.ts";

/**
 * The API's ValidationFailed message names each bad field: "volume_bbls: must be 0 or more;
 * timestamp: is required" (server/http/validation.ts). Split it per field, so a form can show
 * each message beside its input; what names no field of `fields` stays in `other`.
 */
export function fieldErrors(
  err: unknown,
  fields: readonly string[],
): { byField: Map<string, string>; other: string | null } {
  const byField = new Map<string, string>();
  if (!(err instanceof ApiError)) return { byField, other: err instanceof Error ? err.message : String(err) };
  if (err.code !== "ValidationFailed") return { byField, other: err.message };
  const rest: string[] = [];
  for (const part of err.message.split("; ")) {
    const at = part.indexOf(": ");
    const field = at > 0 ? part.slice(0, at) : "";
    if (fields.includes(field) && !byField.has(field)) byField.set(field, part.slice(at + 2));
    else rest.push(part);
  }
  return { byField, other: rest.length > 0 ? rest.join("; ") : null };
}
