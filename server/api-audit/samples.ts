import { randomUUID } from "node:crypto";
import type { JsonSchema } from "./openapi-model.ts";

/** Where valid ids and instants come from when building a request that should pass validation. */
export type SampleSource = {
  /** A real id for a body field or array of ids named `name` (project_id, meter_id, project_ids…). */
  idFor(name: string): string;
  /** Server "now" in ms. */
  nowMs: number;
};

const HOUR = 3_600_000;

/** Fields that must be unique where they live: each sample gets a fresh suffix. */
const UNIQUE_FIELDS = new Set(["alias"]);

function clamp(n: number, schema: JsonSchema): number {
  let v = n;
  if (schema.minimum !== undefined && v < schema.minimum) v = schema.minimum;
  if (schema.maximum !== undefined && v > schema.maximum) v = schema.maximum;
  return v;
}

function fitLength(s: string, schema: JsonSchema): string {
  let out = s;
  if (schema.minLength !== undefined && out.length < schema.minLength)
    out = out.padEnd(schema.minLength, "x");
  if (schema.maxLength !== undefined && out.length > schema.maxLength) out = out.slice(0, schema.maxLength);
  return out;
}

function sampleString(schema: JsonSchema, name: string, src: SampleSource): string {
  switch (schema.format) {
    case "uuid":
      return src.idFor(name);
    case "date-time":
      // An hour ago: inside telemetry's raw window, never ahead of the server clock.
      return new Date(src.nowMs - HOUR).toISOString();
    case "date":
      // Three days ago (UTC): a production day that has closed in every zone.
      return new Date(src.nowMs - 72 * HOUR).toISOString().slice(0, 10);
    case "email":
      return `audit-${randomUUID().slice(0, 8)}@caudal.test`;
  }
  const base = typeof schema.example === "string" ? schema.example : `audit ${name}`;
  if (schema.pattern && !new RegExp(schema.pattern, "u").test(base)) {
    throw new Error(`no sample for ${name}: its example does not match ${schema.pattern}`);
  }
  const unique = UNIQUE_FIELDS.has(name) ? `${base}_${randomUUID().slice(0, 8)}` : base;
  return fitLength(unique.replaceAll(" ", schema.pattern ? "_" : " "), schema);
}

/**
 * A value valid against `schema`. Objects get their required properties only (`full` adds the
 * optional ones), so a generated body is the smallest request the operation should accept.
 */
export function sample(schema: JsonSchema, name: string, src: SampleSource, full = false): unknown {
  if (schema.enum) {
    const values: unknown[] = schema.enum.filter((v) => v !== null);
    return values.includes(schema.example) ? schema.example : values[0];
  }
  switch (schema.type) {
    case "string":
      return sampleString(schema, name, src);
    case "integer":
    case "number": {
      const base = typeof schema.example === "number" ? schema.example : 1;
      return clamp(base, schema);
    }
    case "boolean":
      return typeof schema.default === "boolean" ? schema.default : true;
    case "array": {
      if (schema.items?.format === "uuid") return [src.idFor(name)];
      const item = schema.items ? sample(schema.items, singular(name), src, full) : "x";
      return Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () => item);
    }
    case "object": {
      const out: Record<string, unknown> = {};
      const required = new Set(schema.required ?? []);
      for (const [k, sub] of Object.entries(schema.properties ?? {})) {
        if (full || required.has(k)) out[k] = sample(sub, k, src, full);
      }
      return out;
    }
    default:
      return null;
  }
}

function singular(name: string): string {
  return name.endsWith("s") ? name.slice(0, -1) : name;
}
