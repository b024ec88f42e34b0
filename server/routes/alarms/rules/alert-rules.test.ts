import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AlarmWorld,
  alarmWorld,
  createRule,
  expectError,
} from "../../../testing/fixtures/alarm-fixtures.ts";
import { auditOf as auditEntries } from "../../../testing/fixtures/audit-fixtures.ts";
import { TestServer } from "../../../testing/harness.ts";

type Rule = Record<string, unknown> & { id: string; is_enabled: boolean };

describe("alert rules: CRUD", () => {
  let t: TestServer;
  let w: AlarmWorld;
  beforeAll(async () => {
    t = await TestServer.start();
    w = await alarmWorld(t);
  });
  afterAll(async () => t.stop());

  const auditOf = (ruleId: string) => auditEntries(t, ruleId, "alert_rule");

  it("POST creates with the defaults of the optional fields (201), audited", async () => {
    const res = await t.request<Rule>("/api/alert-rules", {
      token: w.supervisor.token,
      body: {
        project_id: w.projectId,
        name: "  Presión alta ",
        variable_alias: "pressure",
        condition: "gt",
        threshold: 1500.5,
        severity: "critical",
      },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      project_id: w.projectId,
      name: "Presión alta",
      variable_alias: "pressure",
      condition: "gt",
      threshold: 1500.5,
      severity: "critical",
      is_enabled: true,
      deadband: 0,
      delay_seconds: 0,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const audit = await auditOf(res.body.id);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      action: "create",
      user_id: w.supervisor.id,
      project_id: w.projectId,
      before: null,
    });
    expect(JSON.parse(audit[0]?.after ?? "null")).toEqual(res.body);
  });

  it("POST keeps deadband, delay_seconds and is_enabled", async () => {
    const res = await t.request<Rule>("/api/alert-rules", {
      token: w.admin,
      body: {
        project_id: w.projectId,
        name: "Low level",
        variable_alias: "level",
        condition: "lte",
        threshold: -2,
        severity: "info",
        deadband: 0.5,
        delay_seconds: 30,
        is_enabled: false,
      },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ deadband: 0.5, delay_seconds: 30, is_enabled: false, threshold: -2 });
  });

  it("GET lists the project's rules oldest first, and only that project's", async () => {
    const projectId = await t.project();
    const first = await createRule(t, { project_id: projectId, name: "first" });
    const second = await createRule(t, { project_id: projectId, name: "second", is_enabled: false });
    await createRule(t, { project_id: w.foreignProjectId, name: "elsewhere" });
    const res = await t.request<Rule[]>(`/api/alert-rules?project_id=${projectId}`, { token: w.admin });
    expect(res.status).toBe(200);
    expect(res.body.map((r) => r.id)).toEqual([first, second]);
    expect(res.body.map((r) => r.is_enabled)).toEqual([true, false]);
    // Reading needs alarms:read, which an operador has.
    const mine = await t.request<Rule[]>(`/api/alert-rules?project_id=${w.projectId}`, {
      token: w.operador.token,
    });
    expect(mine.status).toBe(200);
    expect(mine.body.length).toBeGreaterThanOrEqual(2);
    expect(new Set(mine.body.map((r) => r.project_id))).toEqual(new Set([w.projectId]));
  });

  it("PUT replaces every field; omitted optional ones reset to their defaults; audited with before/after", async () => {
    const id = await createRule(t, {
      project_id: w.projectId,
      deadband: 3,
      delay_seconds: 10,
      is_enabled: false,
    });
    const res = await t.request<Rule>(`/api/alert-rules/${id}`, {
      method: "PUT",
      token: w.supervisor.token,
      body: {
        project_id: w.projectId,
        name: "Renamed",
        variable_alias: "temperature",
        condition: "lt",
        threshold: 5,
        severity: "warning",
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id,
      name: "Renamed",
      variable_alias: "temperature",
      condition: "lt",
      threshold: 5,
      deadband: 0,
      delay_seconds: 0,
      is_enabled: true,
    });
    const audit = await auditOf(id);
    expect(audit.map((a) => a.action)).toEqual(["create", "update"]);
    expect(JSON.parse(audit[1]?.before ?? "null")).toMatchObject({ deadband: 3, is_enabled: false });
    expect(JSON.parse(audit[1]?.after ?? "null")).toEqual(res.body);
    const listed = await t.request<Rule[]>(`/api/alert-rules?project_id=${w.projectId}`, { token: w.admin });
    expect(listed.body.find((r) => r.id === id)).toEqual(res.body);
  });

  it("PUT refuses to move a rule to another project (400), and changes nothing", async () => {
    const id = await createRule(t, { project_id: w.projectId });
    const res = await t.request(`/api/alert-rules/${id}`, {
      method: "PUT",
      token: w.admin,
      body: {
        project_id: w.foreignProjectId,
        name: "moved",
        variable_alias: "pressure",
        condition: "gt",
        threshold: 1,
        severity: "info",
      },
    });
    expectError(res, 400, "ValidationFailed");
    expect((res.body as { message: string }).message).toMatch(/^project_id:/);
    expect((await auditOf(id)).map((a) => a.action)).toEqual(["create"]);
  });

  it("PATCH toggle flips is_enabled each time (200 with the rule), audited", async () => {
    const id = await createRule(t, { project_id: w.projectId });
    const off = await t.request<Rule>(`/api/alert-rules/${id}/toggle`, {
      method: "PATCH",
      token: w.supervisor.token,
    });
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ id, is_enabled: false });
    const on = await t.request<Rule>(`/api/alert-rules/${id}/toggle`, {
      method: "PATCH",
      token: w.supervisor.token,
    });
    expect(on.body).toMatchObject({ id, is_enabled: true });
    const audit = await auditOf(id);
    expect(audit.map((a) => a.action)).toEqual(["create", "update", "update"]);
    expect(JSON.parse(audit[1]?.after ?? "null")).toMatchObject({ is_enabled: false });
  });

  it("DELETE answers 204, the rule is gone (then 404), audited with the removed rule", async () => {
    const id = await createRule(t, { project_id: w.projectId, name: "doomed" });
    const res = await t.request(`/api/alert-rules/${id}`, { method: "DELETE", token: w.supervisor.token });
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    const listed = await t.request<Rule[]>(`/api/alert-rules?project_id=${w.projectId}`, { token: w.admin });
    expect(listed.body.some((r) => r.id === id)).toBe(false);
    expectError(
      await t.request(`/api/alert-rules/${id}`, { method: "DELETE", token: w.admin }),
      404,
      "NotFound",
    );
    const audit = await auditOf(id);
    expect(audit.map((a) => a.action)).toEqual(["create", "delete"]);
    expect(JSON.parse(audit[1]?.before ?? "null")).toMatchObject({ id, name: "doomed" });
    expect(audit[1]?.after).toBeNull();
  });
});
