import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectError } from "../../testing/fixtures/field-fixtures.ts";
import type { RequestOptions } from "../../testing/harness.ts";
import { TestServer } from "../../testing/harness.ts";

/** 401, 403, 404 and each 400 of the agent routes (/api/edge: agent-token, deploy, deployments, logs, health). */
describe("agent routes: errors", () => {
  let t: TestServer;
  let admin: string;
  let project: string;
  let other: string;
  /** operador: reads config and writes telemetry, but may not write config. */
  let operador: string;
  /** anh_reader: no config:read, no telemetry:write. */
  let reader: string;
  /** supervisor assigned to `project` only: `other` is invisible (404). */
  let supervisor: string;
  beforeAll(async () => {
    t = await TestServer.start();
    admin = (await t.admin()).token;
    project = await t.project();
    other = await t.project();
    operador = (await t.userWithRole("operador", [project])).token;
    reader = (await t.userWithRole("anh_reader", [project])).token;
    supervisor = (await t.userWithRole("supervisor", [project])).token;
  });
  afterAll(async () => t.stop());

  const call = (method: string, path: string, token?: string, body?: unknown) => {
    const options: RequestOptions = { method };
    if (token) options.token = token;
    if (body !== undefined) options.body = body;
    return t.request(path, options);
  };
  const log = (projectId: string) => ({ project_id: projectId, level: "info", message: "hello" });

  /** [label, method, path for a project id, body for a project id, role that gets 403] */
  const routes: [
    string,
    string,
    (id: string) => string,
    ((id: string) => unknown) | undefined,
    () => string,
  ][] = [
    ["agent-token", "POST", (id) => `/api/edge/projects/${id}/agent-token`, undefined, () => operador],
    ["deploy", "POST", (id) => `/api/edge/projects/${id}/deploy`, undefined, () => operador],
    ["deployments", "GET", (id) => `/api/edge/projects/${id}/deployments`, undefined, () => reader],
    ["logs GET", "GET", (id) => `/api/edge/agents/logs?project_id=${id}`, undefined, () => reader],
    ["logs POST", "POST", () => "/api/edge/agents/logs", log, () => reader],
    ["health", "GET", (id) => `/api/edge/agents/${id}/health`, undefined, () => reader],
  ];

  for (const [label, method, path, body, forbiddenRole] of routes) {
    it(`${label}: 401 without a token or with a bad one`, async () => {
      expectError(await call(method, path(project), undefined, body?.(project)), 401, "Unauthorized");
      expectError(await call(method, path(project), "not-a-jwt", body?.(project)), 401, "Unauthorized");
    });

    it(`${label}: 403 for a role without the permission`, async () => {
      expectError(await call(method, path(project), forbiddenRole(), body?.(project)), 403, "Forbidden");
    });

    it(`${label}: 404 for an unknown project and for one the caller is not assigned to`, async () => {
      const unknown = randomUUID();
      expectError(await call(method, path(unknown), admin, body?.(unknown)), 404, "NotFound");
      expectError(await call(method, path(other), supervisor, body?.(other)), 404, "NotFound");
    });
  }

  it("health: 404 for a project with no agent yet", async () => {
    const res = await call("GET", `/api/edge/agents/${project}/health`, admin);
    expectError(res, 404, "NotFound");
    expect((res.body as { message: string }).message).toContain("no agent yet");
  });

  it("400 for a project id that is not a UUID, naming it", async () => {
    for (const [method, path, field] of [
      ["POST", "/api/edge/projects/nope/agent-token", "id"],
      ["POST", "/api/edge/projects/nope/deploy", "id"],
      ["GET", "/api/edge/projects/nope/deployments", "project_id"],
      ["GET", "/api/edge/agents/nope/health", "project_id"],
    ] as const) {
      expectError(await call(method, path, admin), 400, "ValidationFailed", field);
    }
  });

  const listCases: [string, string, string][] = [
    ["missing project_id", "", "project_id"],
    ["project_id not a UUID", "project_id=nope", "project_id"],
    ["unknown level", "level=trace", "level"],
    ["limit 0", "limit=0", "limit"],
    ["limit 1001", "limit=1001", "limit"],
    ["limit not a number", "limit=many", "limit"],
    ["limit not an integer", "limit=2.5", "limit"],
  ];
  for (const [label, query, field] of listCases) {
    it(`logs GET: ${label} → 400 (${field})`, async () => {
      const base = field === "project_id" ? "" : `project_id=${project}&`;
      expectError(
        await call("GET", `/api/edge/agents/logs?${base}${query}`, admin),
        400,
        "ValidationFailed",
        field,
      );
    });
  }

  const postCases: [string, Record<string, unknown>, string][] = [
    ["missing project_id", { level: "info", message: "m" }, "project_id"],
    ["project_id not a UUID", { project_id: "nope", level: "info", message: "m" }, "project_id"],
    ["missing level", { project_id: "P", message: "m" }, "level"],
    ["unknown level", { project_id: "P", level: "fatal", message: "m" }, "level"],
    ["missing message", { project_id: "P", level: "info" }, "message"],
    ["empty message", { project_id: "P", level: "info", message: "" }, "message"],
    ["message too long", { project_id: "P", level: "info", message: "m".repeat(4001) }, "message"],
    ["message not a string", { project_id: "P", level: "info", message: 42 }, "message"],
    ["blank category", { project_id: "P", level: "info", message: "m", category: "  " }, "category"],
    [
      "category too long",
      { project_id: "P", level: "info", message: "m", category: "c".repeat(65) },
      "category",
    ],
  ];
  for (const [label, raw, field] of postCases) {
    it(`logs POST: ${label} → 400 (${field})`, async () => {
      const body = raw.project_id === "P" ? { ...raw, project_id: project } : raw;
      expectError(await call("POST", "/api/edge/agents/logs", admin, body), 400, "ValidationFailed", field);
    });
  }

  it("logs POST: malformed JSON → 400, and nothing is stored", async () => {
    const res = await t.request("/api/edge/agents/logs", { token: admin, rawBody: "{" });
    expect(res.status).toBe(400);
    const list = await call("GET", `/api/edge/agents/logs?project_id=${project}`, admin);
    expect(list.body).toEqual([]);
  });
});
