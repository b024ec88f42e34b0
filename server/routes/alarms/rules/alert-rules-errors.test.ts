import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AlarmWorld,
  alarmWorld,
  createRule,
  expectError,
} from "../../../testing/fixtures/alarm-fixtures.ts";
import { TestServer } from "../../../testing/harness.ts";
import { tableProbe } from "../../../testing/table-probe.ts";

describe("alert rules: 400, 401, 403, 404", () => {
  let t: TestServer;
  let w: AlarmWorld;
  let ruleId: string;
  let foreignRuleId: string;
  const valid = () => ({
    project_id: w.projectId,
    name: "High pressure",
    variable_alias: "pressure",
    condition: "gt",
    threshold: 100,
    severity: "warning",
  });

  beforeAll(async () => {
    t = await TestServer.start();
    w = await alarmWorld(t);
    ruleId = await createRule(t, { project_id: w.projectId });
    foreignRuleId = await createRule(t, { project_id: w.foreignProjectId });
  });
  afterAll(async () => t.stop());

  const ruleCount = () => tableProbe(t.server).count("alert_rules");

  const badBodies: [string, string, (b: Record<string, unknown>) => void][] = [
    ["project_id missing", "project_id", (b) => delete b.project_id],
    ["project_id not a UUID", "project_id", (b) => (b.project_id = "p-1")],
    ["name missing", "name", (b) => delete b.name],
    ["name empty", "name", (b) => (b.name = "")],
    ["name blank", "name", (b) => (b.name = "   ")],
    ["name not a string", "name", (b) => (b.name = 7)],
    ["name too long", "name", (b) => (b.name = "x".repeat(201))],
    ["variable_alias missing", "variable_alias", (b) => delete b.variable_alias],
    ["variable_alias empty", "variable_alias", (b) => (b.variable_alias = "")],
    ["condition missing", "condition", (b) => delete b.condition],
    ["condition outside the enum", "condition", (b) => (b.condition = "ne")],
    ["condition upper-case", "condition", (b) => (b.condition = "GT")],
    ["threshold missing", "threshold", (b) => delete b.threshold],
    ["threshold a string", "threshold", (b) => (b.threshold = "100")],
    ["threshold null", "threshold", (b) => (b.threshold = null)],
    ["severity missing", "severity", (b) => delete b.severity],
    ["severity outside the enum", "severity", (b) => (b.severity = "fatal")],
    ["deadband negative", "deadband", (b) => (b.deadband = -0.1)],
    ["deadband a string", "deadband", (b) => (b.deadband = "1")],
    ["delay_seconds negative", "delay_seconds", (b) => (b.delay_seconds = -1)],
    ["delay_seconds not an integer", "delay_seconds", (b) => (b.delay_seconds = 1.5)],
    ["delay_seconds above a day", "delay_seconds", (b) => (b.delay_seconds = 86_401)],
    ["is_enabled not a boolean", "is_enabled", (b) => (b.is_enabled = "yes")],
  ];

  it.each(badBodies)("POST with %s → 400 naming %s, nothing written", async (_, field, mutate) => {
    const before = await ruleCount();
    const body = valid();
    mutate(body);
    const res = await t.request<{ message: string }>("/api/alert-rules", { token: w.supervisor.token, body });
    expectError(res, 400, "ValidationFailed");
    expect(res.body.message).toContain(`${field}:`);
    expect(await ruleCount()).toBe(before);
  });

  it.each(badBodies)("PUT with %s → 400 naming %s", async (_, field, mutate) => {
    const body = valid();
    mutate(body);
    const res = await t.request<{ message: string }>(`/api/alert-rules/${ruleId}`, {
      method: "PUT",
      token: w.supervisor.token,
      body,
    });
    expectError(res, 400, "ValidationFailed");
    expect(res.body.message).toContain(`${field}:`);
  });

  it("a threshold beyond the double range (JSON 1e400 → Infinity) is a 400", async () => {
    const raw = JSON.stringify(valid()).replace('"threshold":100', '"threshold":1e400');
    expectError(await t.request("/api/alert-rules", { token: w.admin, rawBody: raw }), 400);
  });

  it("malformed JSON and a non-object body are 400, never 500", async () => {
    expectError(await t.request("/api/alert-rules", { token: w.admin, rawBody: "{" }), 400);
    expectError(await t.request("/api/alert-rules", { token: w.admin, body: [valid()] }), 400);
  });

  it("GET without project_id, or with a non-UUID one, is a 400", async () => {
    const missing = await t.request<{ message: string }>("/api/alert-rules", { token: w.admin });
    expectError(missing, 400, "ValidationFailed");
    expect(missing.body.message).toContain("project_id:");
    expectError(
      await t.request("/api/alert-rules?project_id=abc", { token: w.admin }),
      400,
      "ValidationFailed",
    );
  });

  it("a non-UUID rule id in the path is a 400", async () => {
    expectError(
      await t.request("/api/alert-rules/nope", { method: "PUT", token: w.admin, body: valid() }),
      400,
    );
    expectError(await t.request("/api/alert-rules/nope", { method: "DELETE", token: w.admin }), 400);
    expectError(await t.request("/api/alert-rules/nope/toggle", { method: "PATCH", token: w.admin }), 400);
  });

  it("every route is a 401 without a token or with a bad one", async () => {
    const calls = [
      { path: `/api/alert-rules?project_id=${w.projectId}` },
      { path: "/api/alert-rules", body: valid() },
      { path: `/api/alert-rules/${ruleId}`, method: "PUT", body: valid() },
      { path: `/api/alert-rules/${ruleId}`, method: "DELETE" },
      { path: `/api/alert-rules/${ruleId}/toggle`, method: "PATCH" },
    ];
    for (const { path, ...options } of calls) {
      expectError(await t.request(path, options), 401, "Unauthorized");
      expectError(await t.request(path, { ...options, token: "not-a-jwt" }), 401, "Unauthorized");
    }
  });

  it("an operador may read rules but not write them (403, even with a bad body or unknown id)", async () => {
    const op = w.operador.token;
    expect((await t.request(`/api/alert-rules?project_id=${w.projectId}`, { token: op })).status).toBe(200);
    expectError(await t.request("/api/alert-rules", { token: op, body: valid() }), 403, "Forbidden");
    expectError(await t.request("/api/alert-rules", { token: op, body: {} }), 403, "Forbidden");
    expectError(
      await t.request(`/api/alert-rules/${ruleId}`, { method: "PUT", token: op, body: valid() }),
      403,
    );
    expectError(await t.request(`/api/alert-rules/${randomUUID()}`, { method: "DELETE", token: op }), 403);
    expectError(await t.request(`/api/alert-rules/${ruleId}/toggle`, { method: "PATCH", token: op }), 403);
    const rule = await t.request<{ is_enabled: boolean }[]>(`/api/alert-rules?project_id=${w.projectId}`, {
      token: w.admin,
    });
    expect(rule.body.every((r) => r.is_enabled)).toBe(true);
  });

  it("an anh_reader may not even read rules (403)", async () => {
    expectError(
      await t.request(`/api/alert-rules?project_id=${w.projectId}`, { token: w.reader.token }),
      403,
      "Forbidden",
    );
  });

  it("a project outside the caller's, or one that does not exist, is a 404 on GET and POST", async () => {
    const sup = w.supervisor.token;
    expectError(
      await t.request(`/api/alert-rules?project_id=${w.foreignProjectId}`, { token: sup }),
      404,
      "NotFound",
    );
    expectError(
      await t.request(`/api/alert-rules?project_id=${randomUUID()}`, { token: w.admin }),
      404,
      "NotFound",
    );
    const before = await ruleCount();
    expectError(
      await t.request("/api/alert-rules", {
        token: sup,
        body: { ...valid(), project_id: w.foreignProjectId },
      }),
      404,
      "NotFound",
    );
    expectError(
      await t.request("/api/alert-rules", { token: w.admin, body: { ...valid(), project_id: randomUUID() } }),
      404,
      "NotFound",
    );
    expect(await ruleCount()).toBe(before);
  });

  it("an unknown rule, or another project's, is a 404 on PUT, DELETE and toggle", async () => {
    const sup = w.supervisor.token;
    for (const id of [randomUUID(), foreignRuleId]) {
      const body = { ...valid(), project_id: w.foreignProjectId };
      expectError(
        await t.request(`/api/alert-rules/${id}`, { method: "PUT", token: sup, body }),
        404,
        "NotFound",
      );
      expectError(
        await t.request(`/api/alert-rules/${id}`, { method: "DELETE", token: sup }),
        404,
        "NotFound",
      );
      expectError(
        await t.request(`/api/alert-rules/${id}/toggle`, { method: "PATCH", token: sup }),
        404,
        "NotFound",
      );
    }
    // The foreign rule is untouched.
    const theirs = await t.request<{ id: string; is_enabled: boolean }[]>(
      `/api/alert-rules?project_id=${w.foreignProjectId}`,
      { token: w.admin },
    );
    expect(theirs.body.find((r) => r.id === foreignRuleId)?.is_enabled).toBe(true);
  });
});
