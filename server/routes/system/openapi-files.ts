import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { BuiltDocument } from "../../http/openapi-document.ts";
import type { Router } from "../router.ts";

const yamlRoute = createRoute({
  method: "get",
  path: "/docs/openapi.yaml",
  tags: ["System"],
  summary: "OpenAPI document (YAML)",
  description: "This OpenAPI 3.0.3 document, generated from the route definitions.",
  responses: {
    200: { description: "The document", content: { "application/yaml": { schema: z.string() } } },
    304: { description: "Unchanged since the ETag given in If-None-Match" },
  },
});

const jsonRoute = createRoute({
  method: "get",
  path: "/docs/openapi.json",
  tags: ["System"],
  summary: "OpenAPI document (JSON)",
  description: "The same document as /docs/openapi.yaml, as JSON.",
  responses: {
    200: {
      description: "The document",
      content: { "application/json": { schema: z.record(z.string(), z.unknown()) } },
    },
    304: { description: "Unchanged since the ETag given in If-None-Match" },
  },
});

function send(c: Context, built: BuiltDocument, body: string, contentType: string): Response {
  const headers = { ETag: built.etag, "Cache-Control": "no-cache" };
  if (c.req.header("if-none-match") === built.etag) return c.body(null, 304, headers);
  return c.body(body, 200, { ...headers, "Content-Type": contentType });
}

/** The document is built on the first request (after every router is mounted) and reused. */
export function mountOpenApiFiles(router: Router, document: () => BuiltDocument): void {
  router.openapi(yamlRoute, (c) => {
    const built = document();
    return send(c, built, built.yaml, "application/yaml; charset=utf-8");
  });
  router.openapi(jsonRoute, (c) => {
    const built = document();
    return send(c, built, built.json, "application/json; charset=utf-8");
  });
}
