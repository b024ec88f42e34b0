import { createHash } from "node:crypto";
import type { OpenAPIHono } from "@hono/zod-openapi";
import { stringify } from "yaml";
import { defaultExample, statusText } from "./openapi.ts";

type DocumentSource = Pick<OpenAPIHono, "getOpenAPIDocument">;
export type OpenApiDocument = ReturnType<DocumentSource["getOpenAPIDocument"]>;

/** The document and its two serialisations, built together and kept for the process's life. */
export type BuiltDocument = { document: OpenApiDocument; json: string; yaml: string; etag: string };

/** Spec §9: API version 1, OpenAPI document version 1.0.0. */
export const OPENAPI_INFO = {
  title: "Caudal API",
  version: "1.0.0",
  description:
    "Telemetry and compliance platform for oil and gas fields. Paths under `/api` take " +
    "`Authorization: Bearer <access token>` unless marked public; obtain one with POST /api/auth/login. " +
    "Errors are `{error, message}` with a stable `error` code. Every response carries `X-API-Version: 1`.",
} as const;

/** Descriptions of the tags routes use; a tag missing here is still listed, without a description. */
const TAG_DESCRIPTIONS: Record<string, string> = {
  Auth: "Initial setup, login (with optional TOTP two-factor), token refresh and logout",
  Users: "User administration: roles, activation, project assignment",
  "Edge projects": "Edge projects: the sites an agent serves",
  "Edge assets": "Wells, tanks, pipelines, stations and meters of a project",
  "Edge devices": "PLCs and RTUs on an asset, with their protocol",
  "Edge variables": "Tags read from a device",
  "Edge agents":
    "Agent tokens and one-time enrollment codes, deployments of the configuration, agent logs and health",
  "HMI credentials":
    "Read-only MQTT logins for SCADA HMIs: Sparkplug B and the unified namespace of one project",
  System: "Health, metrics and this API explorer (root paths, no /api prefix)",
};

/** Operator-facing tags first; the system endpoints, mounted first, are listed last. */
const LAST_TAGS = ["System"];

const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;

/** Every tag used by an operation, in first-use order (System last), with its description when known. */
function collectTags(document: OpenApiDocument): { name: string; description?: string }[] {
  const names = new Set<string>();
  for (const item of Object.values(document.paths ?? {})) {
    for (const method of HTTP_METHODS) {
      for (const tag of item?.[method]?.tags ?? []) names.add(tag);
    }
  }
  const ordered = [...names]
    .filter((n) => !LAST_TAGS.includes(n))
    .concat(LAST_TAGS.filter((n) => names.has(n)));
  return ordered.map((name) => {
    const description = TAG_DESCRIPTIONS[name];
    return description ? { name, description } : { name };
  });
}

/**
 * Every operation that takes a body answers 415 to a body that is not JSON (zod-openapi's media type
 * gate, mapped in on-error.ts), so each declares it here rather than in every route.
 */
function declareUnsupportedMediaType(document: OpenApiDocument): void {
  for (const item of Object.values(document.paths ?? {})) {
    for (const method of HTTP_METHODS) {
      const op = item?.[method];
      if (!op?.requestBody || op.responses["415"]) continue;
      op.responses["415"] = {
        description: statusText[415],
        content: {
          "application/json": {
            schema: { $ref: "#/components/schemas/ErrorResponse" },
            example: defaultExample[415],
          },
        },
      };
    }
  }
}

/**
 * Builds the OpenAPI 3.0.3 document from the route definitions the first time it is asked for, then
 * serves the same strings: regenerating it per request is slow and leaked memory in hono's
 * middleware (DESIGN.md). The first request comes after createApp mounted every router.
 */
export function openApiDocumentOnce(source: DocumentSource): () => BuiltDocument {
  let built: BuiltDocument | undefined;
  return () => {
    if (built) return built;
    const document = source.getOpenAPIDocument({
      openapi: "3.0.3",
      info: { ...OPENAPI_INFO },
      servers: [{ url: "/", description: "This Caudal server" }],
    });
    document.tags = collectTags(document);
    declareUnsupportedMediaType(document);
    const json = JSON.stringify(document);
    // No anchors/aliases: shared schema objects would otherwise come out as YAML references.
    const yaml = stringify(document, { aliasDuplicateObjects: false, lineWidth: 0 });
    const etag = `"${createHash("sha256").update(json).digest("base64url").slice(0, 27)}"`;
    built = { document, json, yaml, etag };
    return built;
  };
}
