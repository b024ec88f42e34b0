import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestServer } from "../testing/harness.ts";
import { fetchDocument, type JsonSchema, type OpenApiDocument, resolveSchema } from "./openapi-model.ts";
import { SPEC_OPERATIONS } from "./spec-operations.ts";

type Response = { content?: Record<string, { schema?: JsonSchema }> };

/** Issue 10: "the OpenAPI document holds every operation of the spec, the new ones with their real response types". */
describe("the OpenAPI document against the specification's endpoint tables", () => {
  let t: TestServer;
  let doc: OpenApiDocument;
  beforeAll(async () => {
    t = await TestServer.start();
    doc = await fetchDocument(t);
  });
  afterAll(async () => t.stop());

  const operation = (method: string, path: string) =>
    doc.paths[path]?.[method.toLowerCase()] as { responses: Record<string, Response> } | undefined;

  it("holds every operation of the spec with the success status its table gives", () => {
    const problems: string[] = [];
    for (const [method, path, success] of SPEC_OPERATIONS) {
      const name = `${method} ${path}`;
      const op = operation(method, path);
      if (!op) problems.push(`${name} is missing`);
      else if (!op.responses[String(success)]) problems.push(`${name} does not declare ${success}`);
    }
    expect(problems).toEqual([]);
  });

  it("types the distribution operations' responses: the MSI, the script and the binary, the builds as their schemas", () => {
    const content = (method: string, path: string, status: number) => {
      const res = operation(method, path)?.responses[String(status)];
      return res?.content ?? {};
    };
    const props = (schema: JsonSchema | undefined) =>
      schema ? resolveSchema(doc, schema) : ({} as JsonSchema);

    const msi = content("GET", "/api/edge/projects/{id}/installer", 200)["application/x-msi"]?.schema;
    expect(msi).toMatchObject({ type: "string", format: "binary" });
    const queued = [
      ["GET", "/api/edge/projects/{id}/installer"],
      ["POST", "/api/edge/projects/{id}/rebuild"],
      ["POST", "/api/edge/projects/{project_id}/build"],
    ] as const;
    for (const [method, path] of queued) {
      const schema = props(content(method, path, 202)["application/json"]?.schema);
      expect(schema.required, `${method} ${path}`).toEqual(["build_id", "status"]);
      expect(schema.properties?.status?.enum).toEqual(["queued", "running", "succeeded", "failed"]);
    }
    const build = props(
      content("GET", "/api/edge/projects/{id}/builds/{build_id}", 200)["application/json"]?.schema,
    );
    expect(build.required).toEqual(
      expect.arrayContaining(["id", "status", "log", "created_at", "started_at", "finished_at"]),
    );
    const script = content("GET", "/api/edge/projects/{id}/linux-install", 200)["text/x-shellscript"]?.schema;
    expect(script).toMatchObject({ type: "string" });
    const binary = content("GET", "/api/edge/agent/linux-binary/{arch}", 200)["application/octet-stream"]
      ?.schema;
    expect(binary).toMatchObject({ type: "string", format: "binary" });
  });
});
