import { randomUUID } from "node:crypto";
import { Validator } from "@seriousme/openapi-schema-validator";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { parse } from "yaml";
import { createApp } from "../app.ts";
import { TestServer } from "../testing/harness.ts";

type Operation = {
  tags?: string[];
  summary?: string;
  security?: Record<string, string[]>[];
  responses?: Record<string, unknown>;
};
type Document = {
  openapi: string;
  info: { title: string; version: string };
  servers?: { url: string }[];
  tags?: { name: string; description?: string }[];
  paths: Record<string, Record<string, Operation>>;
  components?: { securitySchemes?: Record<string, { type: string; scheme?: string }> };
};

const METHODS = ["get", "put", "post", "delete", "patch", "options", "head", "trace"];

/** Routes served on purpose without an operation: Swagger UI's own files (not part of the API). */
// /mqtt is MQTT over WebSocket: a protocol endpoint, not a REST operation.
const UNDOCUMENTED = new Set([
  "GET /docs/",
  "GET /docs/swagger-initializer.js",
  "GET /docs/assets/{file}",
  // The console's content-hashed static files; the page itself is GET /.
  "GET /assets/{file}",
  "GET /mqtt",
]);

function operationsOf(doc: Document): { method: string; path: string; op: Operation; name: string }[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, op]) => ({ method, path, op, name: `${method.toUpperCase()} ${path}` })),
  );
}

/**
 * Rules every operation meets, including those other features add later: the document is the
 * contract field integrators generate clients from.
 */
describe("the OpenAPI document (GET /docs/openapi.yaml)", () => {
  let t: TestServer;
  let yamlText: string;
  let doc: Document;

  beforeAll(async () => {
    t = await TestServer.start();
    const res = await t.request("/docs/openapi.yaml");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/yaml; charset=utf-8");
    yamlText = res.text;
    doc = parse(yamlText) as Document;
  });
  afterAll(async () => t.stop());

  it("validates against the OpenAPI 3.0.3 schema", async () => {
    const validator = new Validator();
    const result = await validator.validate(yamlText);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.0");
  });

  it("is version 3.0.3 of OpenAPI, 1.0.0 of the Caudal API, with servers and bearerAuth", () => {
    expect(doc.openapi).toBe("3.0.3");
    expect(doc.info.title).toBe("Caudal API");
    expect(doc.info.version).toBe("1.0.0");
    expect(doc.servers?.length).toBeGreaterThan(0);
    expect(doc.components?.securitySchemes?.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
  });

  it("is the same document as /docs/openapi.json", async () => {
    const json = await t.request("/docs/openapi.json");
    expect(json.status).toBe(200);
    expect(json.body).toEqual(doc);
  });

  it("has no YAML anchors or aliases (some tools reject them)", () => {
    expect(yamlText).not.toMatch(/(^|\s)[&*][A-Za-z0-9_]+\s*$/m);
  });

  it("lists the system endpoints at the root", () => {
    for (const path of ["/health", "/metrics", "/docs", "/docs/openapi.yaml"]) {
      expect(doc.paths[path]?.get, path).toBeDefined();
      expect(doc.paths[path]?.get?.security, path).toBeUndefined();
    }
    expect(doc.paths["/api/auth/login"]?.post).toBeDefined();
  });

  it("every operation has a summary, tags (each listed at the top) and responses", () => {
    const listed = new Set((doc.tags ?? []).map((tag) => tag.name));
    for (const { op, name } of operationsOf(doc)) {
      expect(op.summary, name).toBeTruthy();
      expect(op.tags?.length, name).toBeGreaterThan(0);
      for (const tag of op.tags ?? []) expect(listed.has(tag), `${name} tag ${tag}`).toBe(true);
      expect(Object.keys(op.responses ?? {}).length, name).toBeGreaterThan(0);
    }
  });

  it("every protected operation uses bearerAuth and declares its 401", () => {
    const schemes = Object.keys(doc.components?.securitySchemes ?? {});
    for (const { op, name } of operationsOf(doc)) {
      if (!op.security || op.security.length === 0) continue;
      for (const requirement of op.security) {
        for (const scheme of Object.keys(requirement)) expect(schemes, name).toContain(scheme);
      }
      expect(op.responses?.["401"], `${name} declares security but no 401`).toBeDefined();
    }
  });

  it("matches the server: each protected operation refuses a missing token, every 401 is declared", async () => {
    for (const { method, path, op, name } of operationsOf(doc)) {
      const concrete = path.replace(/\{[^}]+\}/g, () => randomUUID());
      const res = await t.request(concrete, {
        method: method.toUpperCase(),
        headers: method === "get" || method === "head" ? {} : { "content-type": "application/json" },
        ...(method === "get" || method === "head" ? {} : { rawBody: "{}" }),
      });
      const body = res.body as { message?: string };
      expect(body.message ?? "", `${name} is documented but not served`).not.toMatch(/^no route for /);
      const declaredProtected = (op.security ?? []).length > 0;
      if (declaredProtected) expect(res.status, `${name} declares security but answered`).toBe(401);
      if (res.status === 401) expect(op.responses?.["401"], `${name} answers 401 undeclared`).toBeDefined();
    }
  });

  it("documents every route the server serves", () => {
    const app = createApp({ ctx: t.server.context });
    const documented = new Set(operationsOf(doc).map((o) => o.name));
    const undocumented = app.routes
      // use() middleware is registered for method ALL; endpoints name their method.
      .filter((r) => r.method !== "ALL")
      .map((r) => `${r.method} ${r.path.replace(/:([A-Za-z0-9_]+)(\{[^}]*\})?/g, "{$1}")}`)
      .filter((name) => !documented.has(name) && !UNDOCUMENTED.has(name));
    expect(
      [...new Set(undocumented)],
      "declare these with createRoute, or list non-API protocol endpoints in UNDOCUMENTED",
    ).toEqual([]);
  });

  it("is generated once, not per request", async () => {
    const app = createApp({ ctx: t.server.context });
    const build = vi.spyOn(app, "getOpenAPIDocument");
    const first = await (await app.request("/docs/openapi.yaml")).text();
    await app.request("/docs/openapi.json");
    const again = await (await app.request("/docs/openapi.yaml")).text();
    expect(build).toHaveBeenCalledTimes(1);
    expect(again).toBe(first);
  });

  it("answers 304 to a matching If-None-Match", async () => {
    const first = await t.request("/docs/openapi.json");
    const etag = first.headers.get("etag");
    expect(etag).toMatch(/^"[^"]+"$/);
    const again = await t.request("/docs/openapi.json", { headers: { "if-none-match": etag ?? "" } });
    expect(again.status).toBe(304);
    expect(again.text).toBe("");
  });
});
