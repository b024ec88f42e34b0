import { fillPath, type JsonSchema, type Operation } from "./openapi-model.ts";
import { type SampleSource, sample } from "./samples.ts";
import { member } from "./schema-check.ts";

/** One HTTP request of the audit; `path` already carries the query string. */
export type AuditRequest = {
  method: string;
  path: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
};

/**
 * reject: a 4xx is required (the input breaks what the document declares).
 * tolerate: any status below 500 (the input is odd but allowed, or its handling is a design choice).
 * status: exactly this status (an unknown id is a 404).
 */
export type Expectation =
  | { kind: "reject" }
  | { kind: "tolerate" }
  | { kind: "status"; status: number }
  /** An unknown project as a filter: 404, or an empty list for roles that see every project. */
  | { kind: "absent" };

export type Case = {
  op: Operation;
  label: string;
  expect: Expectation;
  request: AuditRequest;
  /** The body field (dotted path) the case breaks, when it breaks exactly one. */
  field?: string;
};

/** Where the real ids of the fixture come from. */
export type IdSource = SampleSource & {
  /** A real id for the path parameter `name` of `path`. */
  pathId(path: string, name: string): string;
};

export type BaseInput = {
  pathValues: Record<string, string>;
  query: Record<string, string>;
  body: unknown;
};

export const REJECT: Expectation = { kind: "reject" };
export const TOLERATE: Expectation = { kind: "tolerate" };

// JSON cannot carry -0, Infinity or a numeral too large for a double; these markers are replaced in
// the serialised body so the server's parser sees the literal text.
const RAW = {
  "@@NEG_ZERO@@": "-0",
  "@@INF@@": "1e999",
  "@@NEG_INF@@": "-1e999",
} as const;
type RawMarker = keyof typeof RAW;
const RAW_VALUE: Record<RawMarker, number> = {
  "@@NEG_ZERO@@": -0,
  "@@INF@@": Number.POSITIVE_INFINITY,
  "@@NEG_INF@@": Number.NEGATIVE_INFINITY,
};

export function serialise(body: unknown): string {
  let text = JSON.stringify(body);
  for (const [marker, literal] of Object.entries(RAW)) text = text.replaceAll(`"${marker}"`, literal);
  return text;
}

export function effectiveValue(v: unknown): unknown {
  return typeof v === "string" && v in RAW_VALUE ? RAW_VALUE[v as RawMarker] : v;
}

/** The smallest valid input: real path ids, required query parameters, required body fields. */
export function baseInput(op: Operation, ids: IdSource, queryToken?: string): BaseInput {
  const pathValues: Record<string, string> = {};
  // A path parameter with an enum (an architecture) takes its first value; the others name ids.
  for (const p of op.pathParams)
    pathValues[p.name] = p.schema.enum ? String(p.schema.enum[0]) : ids.pathId(op.path, p.name);
  const query: Record<string, string> = {};
  for (const p of op.queryParams) {
    if (p.name === "token" && op.security === "queryToken") {
      if (queryToken) query.token = queryToken;
    } else if (p.required) query[p.name] = String(sample(p.schema, p.name, ids));
  }
  return { pathValues, query, body: op.body ? sample(op.body, "body", ids) : undefined };
}

export function buildRequest(
  op: Operation,
  input: BaseInput,
  override: { rawBody?: string; headers?: Record<string, string>; extraQuery?: string } = {},
): AuditRequest {
  const qs = new URLSearchParams(input.query).toString();
  const query = [qs, override.extraQuery].filter(Boolean).join("&");
  const path = `${fillPath(op.path, input.pathValues)}${query ? `?${query}` : ""}`;
  const req: AuditRequest = { method: op.method, path };
  if (override.headers) req.headers = override.headers;
  if (override.rawBody !== undefined) req.rawBody = override.rawBody;
  else if (input.body !== undefined) req.rawBody = serialise(input.body);
  return req;
}

export const REMOVE = Symbol("remove");

/**
 * A copy of an array item that differs from it in every free-text field (no format, enum or
 * pattern), so two items are not refused as duplicates (two readings of one variable) before the
 * broken field is looked at.
 */
function sibling(item: unknown, schema: JsonSchema | undefined): unknown {
  if (typeof item === "string") {
    const free = schema?.type === "string" && !schema.format && !schema.enum && !schema.pattern;
    return free ? `${item}_2` : item;
  }
  if (Array.isArray(item)) return item.map((v) => sibling(v, schema?.items));
  if (item && typeof item === "object") {
    return Object.fromEntries(Object.entries(item).map(([k, v]) => [k, sibling(v, schema?.properties?.[k])]));
  }
  return item;
}

/**
 * A deep copy of `base` (valid against `schema`) with the value at `path` set, or removed; index 1
 * of a one-item array is added as a sibling of index 0.
 */
export function withValue(
  base: unknown,
  schema: JsonSchema,
  path: (string | number)[],
  value: unknown,
): unknown {
  const copy: unknown = structuredClone(base);
  let node: unknown = copy;
  let nodeSchema: JsonSchema | undefined = schema;
  for (let i = 0; i < path.length; i++) {
    const key = path[i];
    const last = i === path.length - 1;
    if (Array.isArray(node) && typeof key === "number") {
      if (node.length <= key) node.push(sibling(node[0], nodeSchema?.items));
      nodeSchema = nodeSchema?.items;
      if (!last) node = node[key];
      else if (value === REMOVE) node.splice(key, 1);
      else node[key] = value;
    } else if (node && typeof node === "object" && typeof key === "string") {
      const record = node as Record<string, unknown>;
      nodeSchema = nodeSchema?.properties?.[key];
      if (!last) node = record[key];
      else if (value === REMOVE) delete record[key];
      else record[key] = value;
    }
  }
  return copy;
}

/** A place in a request that names a resource by id. */
export type IdSlot =
  | { where: "path" | "query"; name: string }
  | { where: "body"; name: string; path: (string | number)[] };

/** Every id a request names: path ids, id query parameters, and uuid fields of the base body. */
export function idSlots(op: Operation, input: BaseInput, isIdName: (name: string) => boolean): IdSlot[] {
  const out: IdSlot[] = op.pathParams
    .filter((p) => p.schema.format === "uuid")
    .map((p) => ({ where: "path", name: p.name }));
  for (const p of op.queryParams) {
    if (p.schema.format === "uuid" && isIdName(p.name)) out.push({ where: "query", name: p.name });
  }
  const walk = (schema: JsonSchema, value: unknown, path: (string | number)[], name: string) => {
    if (schema.format === "uuid" && typeof value === "string" && isIdName(name)) {
      out.push({ where: "body", name, path });
    } else if (schema.type === "array" && Array.isArray(value) && schema.items) {
      if (value.length > 0) walk(schema.items, value[0], [...path, 0], name);
    } else if (schema.type === "object" && value && typeof value === "object") {
      for (const [k, sub] of Object.entries(schema.properties ?? {})) {
        const v = member(value, k);
        if (v !== undefined) walk(sub, v, [...path, k], k);
      }
    }
  };
  if (op.body) walk(op.body, input.body, [], "body");
  return out;
}

/** `input` with the id at `slot` replaced by `id`. */
export function withId(op: Operation, input: BaseInput, slot: IdSlot, id: string): BaseInput {
  if (slot.where === "body")
    return op.body ? { ...input, body: withValue(input.body, op.body, slot.path, id) } : input;
  if (slot.where === "path") return { ...input, pathValues: { ...input.pathValues, [slot.name]: id } };
  return { ...input, query: { ...input.query, [slot.name]: id } };
}
