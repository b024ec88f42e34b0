import type { TestServer } from "../testing/harness.ts";

/** The subset of JSON Schema (OpenAPI 3.0 dialect) the generated document uses. */
export type JsonSchema = {
  type?: "string" | "number" | "integer" | "boolean" | "array" | "object";
  format?: string;
  enum?: unknown[];
  nullable?: boolean;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  allOf?: JsonSchema[];
  $ref?: string;
  example?: unknown;
  default?: unknown;
};

type ParameterObject = {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  required?: boolean;
  schema: JsonSchema;
};

type OperationObject = {
  security?: Record<string, string[]>[];
  parameters?: ParameterObject[];
  requestBody?: { required?: boolean; content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, { content?: Record<string, { schema?: JsonSchema }> }>;
};

export type OpenApiDocument = {
  paths: Record<string, Record<string, OperationObject>>;
  components: { schemas: Record<string, JsonSchema> };
};

export type Parameter = { name: string; required: boolean; schema: JsonSchema };

/** One operation of the document, its schemas fully resolved ($ref followed, allOf merged). */
export type Operation = {
  /** "PUT /api/edge/assets/{id}" */
  id: string;
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  pathParams: Parameter[];
  queryParams: Parameter[];
  body: JsonSchema | undefined;
  /** bearer: Authorization header; queryToken: `?token=` (the WebSocket upgrade); public: none. */
  security: "bearer" | "queryToken" | "public";
  declaredStatuses: number[];
  /** The JSON schema of each declared response that has one. */
  responseSchemas: Map<number, JsonSchema>;
};

const METHODS = ["get", "post", "put", "patch", "delete"] as const;

/** The document as served; the one unchecked step from JSON to the typed shape, after a shape check. */
export function asOpenApiDocument(value: unknown): OpenApiDocument {
  if (typeof value !== "object" || value === null || !("paths" in value) || !("components" in value)) {
    throw new Error("the served OpenAPI document has no paths or components");
  }
  return value as OpenApiDocument;
}

export async function fetchDocument(t: TestServer): Promise<OpenApiDocument> {
  const res = await t.request("/docs/openapi.json");
  if (res.status !== 200) throw new Error(`GET /docs/openapi.json: ${res.status}`);
  return asOpenApiDocument(res.body);
}

/** Follows $ref and merges allOf (properties, required, and the other keywords, later wins). */
export function resolveSchema(doc: OpenApiDocument, schema: JsonSchema, depth = 0): JsonSchema {
  if (depth > 20) throw new Error("schema nesting too deep (a cycle?)");
  if (schema.$ref) {
    const name = schema.$ref.replace("#/components/schemas/", "");
    const target = doc.components.schemas[name];
    if (!target) throw new Error(`unknown schema ${schema.$ref}`);
    const { $ref: _ignored, ...rest } = schema;
    return resolveSchema(doc, { ...target, ...rest }, depth + 1);
  }
  let out: JsonSchema = { ...schema };
  if (schema.allOf) {
    const { allOf, ...rest } = schema;
    out = {};
    for (const part of [...allOf, rest]) {
      const r = resolveSchema(doc, part, depth + 1);
      const properties = { ...out.properties, ...r.properties };
      const required = [...new Set([...(out.required ?? []), ...(r.required ?? [])])];
      out = { ...out, ...r, properties, required };
    }
    if (Object.keys(out.properties ?? {}).length === 0) delete out.properties;
  }
  if (out.properties) {
    const properties: Record<string, JsonSchema> = {};
    for (const [k, v] of Object.entries(out.properties)) properties[k] = resolveSchema(doc, v, depth + 1);
    out.properties = properties;
  }
  if (out.items) out.items = resolveSchema(doc, out.items, depth + 1);
  return out;
}

/** Every operation under /api (the root system paths take no input and no token). */
export function apiOperations(doc: OpenApiDocument): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    if (!path.startsWith("/api/")) continue;
    for (const m of METHODS) {
      const op = item[m];
      if (!op) continue;
      const params = (op.parameters ?? []).map((p) => ({
        in: p.in,
        name: p.name,
        required: p.required === true,
        schema: resolveSchema(doc, p.schema),
      }));
      const bodySchema = op.requestBody?.content["application/json"]?.schema;
      const schemes = (op.security ?? []).flatMap((s) => Object.keys(s));
      const method = m.toUpperCase() as Operation["method"];
      ops.push({
        id: `${method} ${path}`,
        method,
        path,
        pathParams: params.filter((p) => p.in === "path"),
        queryParams: params.filter((p) => p.in === "query"),
        body: bodySchema ? resolveSchema(doc, bodySchema) : undefined,
        security: schemes.includes("bearerAuth")
          ? "bearer"
          : schemes.includes("accessTokenQuery")
            ? "queryToken"
            : "public",
        declaredStatuses: Object.keys(op.responses).map(Number),
        responseSchemas: new Map(
          Object.entries(op.responses).flatMap(([status, r]) => {
            const schema = r.content?.["application/json"]?.schema;
            return schema ? [[Number(status), resolveSchema(doc, schema)] as const] : [];
          }),
        ),
      });
    }
  }
  return ops;
}

/** The path with each `{param}` replaced by the given (already URL-safe) string. */
export function fillPath(path: string, values: Record<string, string>): string {
  return path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const v = values[name];
    if (v === undefined) throw new Error(`no value for path parameter ${name} of ${path}`);
    return v;
  });
}

/** The path segment before `{name}` ("assets" for /api/edge/assets/{id}). */
export function segmentBefore(path: string, name: string): string {
  const parts = path.split("/");
  const i = parts.indexOf(`{${name}}`);
  return i > 0 ? (parts[i - 1] ?? "") : "";
}
