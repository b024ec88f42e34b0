import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestServer } from "../testing/harness.ts";
import { ErrorCode } from "./errors.ts";

type Media = { schema?: unknown; example?: unknown; examples?: Record<string, { value?: unknown }> };
type Response = { description?: string; content?: Record<string, Media> };
type Operation = { responses?: Record<string, Response>; requestBody?: unknown };
type Schema = {
  type?: string;
  properties?: Record<string, Schema>;
  additionalProperties?: unknown;
  nullable?: boolean;
  $ref?: string;
  items?: Schema;
};
type Document = {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
};

const METHODS = ["get", "put", "post", "delete", "patch", "options", "head", "trace"];

/** The examples the explorer shows for a response: `example`, or each of `examples`. */
function examplesOf(response: Response): Record<string, unknown>[] {
  const media = response.content?.["application/json"];
  if (!media) return [];
  if (media.example !== undefined) return [media.example as Record<string, unknown>];
  return Object.values(media.examples ?? {}).map((e) => e.value as Record<string, unknown>);
}

const isErrorResponse = (response: Response): boolean => {
  const schema = response.content?.["application/json"]?.schema as { $ref?: string } | undefined;
  return schema?.$ref === "#/components/schemas/ErrorResponse";
};

const isErrorCode = (code: unknown): code is keyof typeof ErrorCode =>
  typeof code === "string" && Object.hasOwn(ErrorCode, code);

/** What the explorer shows for each error response: an example that is right for its status. */
describe("the OpenAPI document's error examples", () => {
  let t: TestServer;
  let doc: Document;
  beforeAll(async () => {
    t = await TestServer.start();
    doc = (await t.request<Document>("/docs/openapi.json")).body;
  });
  afterAll(async () => t.stop());

  const errorResponses = () =>
    Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => METHODS.includes(method))
        .flatMap(([method, op]) =>
          Object.entries(op.responses ?? {})
            // GET /health's 503 is the health document itself, not an ErrorResponse.
            .filter(([status, response]) => Number(status) >= 400 && isErrorResponse(response))
            .map(([status, response]) => ({
              name: `${method.toUpperCase()} ${path} ${status}`,
              status: Number(status),
              response,
            })),
        ),
    );

  it("every error response has a JSON example whose code belongs to its status", () => {
    const all = errorResponses();
    expect(all.length).toBeGreaterThan(200);
    const wrong: string[] = [];
    for (const { name, status, response } of all) {
      const examples = examplesOf(response);
      if (examples.length === 0) wrong.push(`${name}: no example`);
      for (const example of examples) {
        const code = example.error;
        if (!isErrorCode(code) || ErrorCode[code] !== status)
          wrong.push(`${name}: example error ${String(code)}`);
        if (typeof example.message !== "string" || example.message.length === 0)
          wrong.push(`${name}: no message`);
        if ("requires_2fa" in example && code !== "TwoFactorRequired")
          wrong.push(`${name}: requires_2fa on ${String(code)}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("the common statuses show the common codes", () => {
    const expected: Record<number, string> = {
      401: "Unauthorized",
      403: "Forbidden",
      404: "NotFound",
      413: "PayloadTooLarge",
      429: "RateLimited",
    };
    for (const { name, status, response } of errorResponses()) {
      // Login and enroll show their own 401 codes (checked below).
      if (
        !expected[status] ||
        name === "POST /api/auth/login 401" ||
        name === "POST /api/edge/agents/enroll 401"
      )
        continue;
      expect(
        examplesOf(response).map((e) => e.error),
        name,
      ).toEqual([expected[status]]);
    }
    // Login's 401 shows each of its codes; only the two-factor challenge carries requires_2fa.
    const login401 = doc.paths["/api/auth/login"]?.post?.responses?.["401"];
    const login = login401 ? examplesOf(login401) : [];
    expect(login.map((e) => e.error).sort()).toEqual(
      [
        "AccountLocked",
        "InvalidCredentials",
        "RecoveryCodeInvalid",
        "TwoFactorFailed",
        "TwoFactorRequired",
      ].sort(),
    );
    expect(login.find((e) => e.error === "TwoFactorRequired")?.requires_2fa).toBe(true);
    const enroll401 = doc.paths["/api/edge/agents/enroll"]?.post?.responses?.["401"];
    expect((enroll401 ? examplesOf(enroll401) : []).map((e) => e.error).sort()).toEqual(
      [
        "EnrollmentCodeExpired",
        "EnrollmentCodeRevoked",
        "EnrollmentCodeUsed",
        "InvalidEnrollmentCode",
      ].sort(),
    );
  });

  it("every operation that takes a body declares 415 UnsupportedMediaType", () => {
    const missing = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method, op]) => METHODS.includes(method) && op.requestBody && !op.responses?.["415"])
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    expect(missing).toEqual([]);
  });

  it("the ErrorResponse schema shows no example of one particular error", () => {
    const props = doc.components.schemas.ErrorResponse?.properties ?? {};
    expect(Object.keys(props).sort()).toEqual(["error", "message", "requires_2fa"]);
    for (const [name, prop] of Object.entries(props)) expect(prop, name).not.toHaveProperty("example");
  });

  it("last_health_report has the agent heartbeat's real schema, not an open map", () => {
    const project = doc.components.schemas.EdgeProject;
    let report = project?.properties?.last_health_report;
    if (report?.$ref) report = doc.components.schemas[report.$ref.replace("#/components/schemas/", "")];
    expect(report?.additionalProperties).toBeUndefined();
    expect(report?.nullable).toBe(true);
    expect(Object.keys(report?.properties ?? {}).sort()).toEqual(
      ["agent_version", "buffer", "config", "devices", "received_at", "uptime_seconds"].sort(),
    );
    expect(Object.keys(report?.properties?.buffer?.properties ?? {})).toContain("dropped_batches");
    expect(Object.keys(report?.properties?.devices?.items?.properties ?? {})).toContain("state");
  });
});
