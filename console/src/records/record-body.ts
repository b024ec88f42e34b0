import { utcToZoned, zonedToUtc } from "../i18n/format.ts";
import type { RecordType } from "./record-types.ts";

/** A record as the list endpoints return it: the common fields and the type's own. */
export type RecordRow = {
  id: string;
  project_id: string;
  supersedes: string | null;
  correction_reason: string | null;
  superseded_by: string | null;
  created_by: string | null;
  created_at: string;
  [field: string]: unknown;
};

/**
 * The POST body from a form's strings. Instants are wall-clock times in the project's zone, sent
 * as UTC. An empty field is left out (the API says whether it was required); whatever cannot be
 * converted is sent as typed, so the API's own message names what is wrong with it.
 */
export function recordBody(
  type: RecordType,
  values: ReadonlyMap<string, string>,
  timeZone: string,
  context: { projectId: string; supersedes?: string; reason?: string },
): Record<string, unknown> {
  const body: Record<string, unknown> = { project_id: context.projectId };
  for (const field of type.fields) {
    const raw = (values.get(field.name) ?? "").trim();
    if (raw === "") continue;
    if (field.kind === "number") {
      const n = Number(raw);
      body[field.name] = Number.isFinite(n) ? n : raw;
    } else if (field.kind === "instant") {
      const ms = zonedToUtc(raw, timeZone);
      body[field.name] = Number.isNaN(ms) ? raw : new Date(ms).toISOString();
    } else {
      body[field.name] = raw;
    }
  }
  if (context.supersedes !== undefined) {
    body.supersedes = context.supersedes;
    body.correction_reason = context.reason ?? "";
  }
  return body;
}

/** A record's values as a form shows them, to start a correction from (instants in the project's zone). */
export function formValues(type: RecordType, record: RecordRow, timeZone: string): Map<string, string> {
  const values = new Map<string, string>();
  for (const field of type.fields) {
    const value = record[field.name];
    if (value === null || value === undefined) values.set(field.name, "");
    else if (field.kind === "instant" && typeof value === "string")
      values.set(field.name, utcToZoned(Date.parse(value), timeZone));
    else values.set(field.name, String(value));
  }
  return values;
}

/** The record's own instant (timestamp, started_at…) in milliseconds, for ordering. */
export function recordInstant(type: RecordType, record: RecordRow): number {
  const value = record[type.instant];
  return typeof value === "string" ? Date.parse(value) : Number.NaN;
}
