import type { JsonSchema } from "./openapi-model.ts";

/**
 * Checks a value against what the document declares (type, nullable, enum, format, length, pattern,
 * range, items, required). A value it flags must be refused by the server: a constraint the document
 * declares and the server does not enforce is a defect of one or the other (CONTRIBUTING: "Nothing
 * is declared that is not implemented"). Formats are checked strictly (RFC 3339 date-time with a
 * zone, calendar-valid dates, RFC 9562 textual UUIDs).
 */
export function violation(schema: JsonSchema, value: unknown): string | null {
  if (value === null) return schema.nullable ? null : "null";
  if (schema.enum && !schema.enum.includes(value)) return "not in enum";
  switch (schema.type) {
    case "string":
      return typeof value === "string" ? stringViolation(schema, value) : "not a string";
    case "integer":
    case "number": {
      if (typeof value !== "number") return "not a number";
      if (!Number.isFinite(value)) return "not finite";
      if (schema.type === "integer" && !Number.isSafeInteger(value)) return "not an integer";
      if (schema.minimum !== undefined && value < schema.minimum) return "below minimum";
      if (schema.maximum !== undefined && value > schema.maximum) return "above maximum";
      return null;
    }
    case "boolean":
      return typeof value === "boolean" ? null : "not a boolean";
    case "array": {
      if (!Array.isArray(value)) return "not an array";
      if (schema.minItems !== undefined && value.length < schema.minItems) return "too few items";
      if (schema.maxItems !== undefined && value.length > schema.maxItems) return "too many items";
      for (const [i, item] of value.entries()) {
        const v = schema.items ? violation(schema.items, item) : null;
        if (v) return `[${i}] ${v}`;
      }
      return null;
    }
    case "object": {
      if (typeof value !== "object" || Array.isArray(value)) return "not an object";
      const record = value as Record<string, unknown>;
      for (const name of schema.required ?? []) {
        if (!(name in record)) return `.${name} missing`;
      }
      for (const [name, sub] of Object.entries(schema.properties ?? {})) {
        if (!(name in record)) continue;
        const v = violation(sub, record[name]);
        if (v) return `.${name} ${v}`;
      }
      return null;
    }
    default:
      return null;
  }
}

// RFC 9562: versions 1–8 with the 10xx variant, plus the Nil and Max UUIDs (§5.9, §5.10).
const UUID =
  /^([0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}|0{8}-0{4}-0{4}-0{4}-0{12}|f{8}-f{4}-f{4}-f{4}-f{12})$/i;
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function validDate(date: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const probe = new Date(0);
  // setUTCFullYear, not Date.UTC: the latter maps years 0–99 to 1900–1999.
  probe.setUTCFullYear(y, mo - 1, d);
  return probe.getUTCFullYear() === y && probe.getUTCMonth() === mo - 1 && probe.getUTCDate() === d;
}

function validDateTime(value: string): boolean {
  const m = DATE_TIME.exec(value);
  if (!m?.[1] || !validDate(m[1])) return false;
  if (Number(m[2]) > 23 || Number(m[3]) > 59 || Number(m[4] ?? 0) > 59) return false;
  return Number.isFinite(Date.parse(value));
}

function stringViolation(schema: JsonSchema, value: string): string | null {
  if (schema.minLength !== undefined && value.length < schema.minLength) return "too short";
  if (schema.maxLength !== undefined && value.length > schema.maxLength) return "too long";
  if (schema.pattern && !new RegExp(schema.pattern, "u").test(value)) return "pattern";
  switch (schema.format) {
    case "uuid":
      return UUID.test(value) ? null : "not a uuid";
    case "date-time":
      return validDateTime(value) ? null : "not a date-time";
    case "date":
      return validDate(value) ? null : "not a date";
    case "email":
      return EMAIL.test(value) ? null : "not an email";
    default:
      return null;
  }
}

/**
 * How a query string value reads against its schema. Numbers are coerced the way every framework
 * does it for plain decimal text; text that coercion rules differ on ("", " 1", "0x10") is `null`:
 * either answer is acceptable, as long as it is not a 500.
 */
export function queryViolation(schema: JsonSchema, raw: string): string | null | "ambiguous" {
  if (raw === "") return "ambiguous";
  // A repeatable parameter (style form, explode): one occurrence is an array of one item.
  if (schema.type === "array") return schema.items ? queryViolation(schema.items, raw) : null;
  if (schema.type === "integer" || schema.type === "number") {
    if (!/^-?\d+(\.\d+)?(e[+-]?\d+)?$/i.test(raw))
      return /^[\s0-9a-fx.+-]+$/i.test(raw) ? "ambiguous" : "NaN";
    return violation(schema, Number(raw));
  }
  if (schema.type === "boolean") return raw === "true" || raw === "false" ? null : "ambiguous";
  return violation(schema, raw);
}

/** `value[key]` when `value` is a JSON object, else undefined: the one place JSON is read by key. */
export function member(value: unknown, key: string): unknown {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)[key]
    : undefined;
}
