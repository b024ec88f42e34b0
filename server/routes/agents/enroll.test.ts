import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditOf, expectError } from "../../testing/fixtures/field-fixtures.ts";
import { TestServer } from "../../testing/harness.ts";

type Enrollment = { project_id: string; agent_token: string; mqtt_username: string; mqtt_url: string };

const ENROLL = "/api/edge/agents/enroll";

/** POST /api/edge/agents/enroll: public; the one-time code is the credential (issue 10 §2). */
describe("POST /api/edge/agents/enroll", () => {
  let t: TestServer;
  let admin: string;
  beforeAll(async () => {
    t = await TestServer.start();
    admin = (await t.admin()).token;
  });
  afterAll(async () => t.stop());

  const issue = async (projectId: string, body?: unknown) => {
    const res = await t.request<{ id: string; code: string }>(
      `/api/edge/projects/${projectId}/enrollment-codes`,
      {
        method: "POST",
        token: admin,
        ...(body === undefined ? {} : { body }),
      },
    );
    expect(res.status).toBe(201);
    return res.body;
  };
  const enroll = (body: unknown) => t.request<Enrollment>(ENROLL, { body });
  const message = (res: { body: unknown }) => (res.body as { message: string }).message;

  it("trades a code for the project's agent token and broker, with no user token; audited", async () => {
    const project = await t.project();
    const code = await issue(project);
    const res = await enroll({ code: code.code, hostname: "rig-7" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      project_id: project,
      agent_token: expect.stringMatching(/^cat_/),
      mqtt_username: `agent:${project}`,
      mqtt_url: `mqtt://127.0.0.1:${t.server.broker.port}`,
    });
    const codeAudit = await auditOf(t, code.id);
    expect(codeAudit.map((a) => [a.action, a.user_id])).toEqual([
      ["create", expect.any(String)],
      ["update", null],
    ]);
    expect(JSON.parse(String(codeAudit[1]?.after))).toMatchObject({
      status: "used",
      hostname: "rig-7",
      address: expect.stringContaining("127.0.0.1"),
    });
    const tokenAudit = (await auditOf(t, project)).filter((a) => a.entity === "agent_token");
    expect(tokenAudit).toEqual([expect.objectContaining({ action: "create", user_id: null })]);
    expect(JSON.stringify([codeAudit, tokenAudit])).not.toContain(res.body.agent_token);
  });

  it("401 with a distinct error for an unknown, a used, an expired and a revoked code", async () => {
    const project = await t.project();
    expectError(await enroll({ code: "cen_never-issued" }), 401, "InvalidEnrollmentCode");

    const used = await issue(project);
    expect((await enroll({ code: used.code })).status).toBe(200);
    const again = await enroll({ code: used.code });
    expectError(again, 401, "EnrollmentCodeUsed");
    expect(message(again)).toContain("already used");

    const revoked = await issue(project);
    const del = await t.request(`/api/edge/projects/${project}/enrollment-codes/${revoked.id}`, {
      method: "DELETE",
      token: admin,
    });
    expect(del.status).toBe(200);
    const refused = await enroll({ code: revoked.code });
    expectError(refused, 401, "EnrollmentCodeRevoked");
    expect(message(refused)).toContain("revoked");

    const expiring = await issue(project, { ttl_seconds: 60 });
    t.clock.advance(60_000);
    const late = await enroll({ code: expiring.code });
    expectError(late, 401, "EnrollmentCodeExpired");
    expect(message(late)).toContain("expired at");
  });

  it("a code of another project than project_id: 401 before it is spent, and that project's token is untouched", async () => {
    const project = await t.project();
    const other = await t.project();
    const { code } = await issue(project);
    const refused = await enroll({ code, project_id: other });
    expectError(refused, 401, "InvalidEnrollmentCode");
    expect(message(refused)).toContain("another project");
    expect((await auditOf(t, project)).filter((a) => a.entity === "agent_token")).toEqual([]);
    const ok = await enroll({ code, project_id: project });
    expect(ok.status).toBe(200);
    expect(ok.body.project_id).toBe(project);
  });

  it("two concurrent enrollments with one code: exactly one succeeds", async () => {
    const project = await t.project();
    for (let round = 0; round < 3; round++) {
      const { code } = await issue(project);
      const results = await Promise.all(
        Array.from({ length: 8 }, () => enroll({ code, hostname: `h${round}` })),
      );
      const statuses = results.map((r) => r.status).sort();
      expect(statuses).toEqual([200, 401, 401, 401, 401, 401, 401, 401]);
      for (const r of results.filter((r) => r.status === 401)) expectError(r, 401, "EnrollmentCodeUsed");
    }
    // One token per success: three rotations, the first a create.
    const rotations = (await auditOf(t, project)).filter((a) => a.entity === "agent_token");
    expect(rotations.map((a) => a.action)).toEqual(["create", "update", "update"]);
  });

  const bad: [string, unknown, string][] = [
    ["missing code", {}, "code"],
    ["empty code", { code: "" }, "code"],
    ["code not a string", { code: 42 }, "code"],
    ["code too long", { code: "c".repeat(201) }, "code"],
    ["blank hostname", { code: "cen_x", hostname: "  " }, "hostname"],
    ["hostname too long", { code: "cen_x", hostname: "h".repeat(254) }, "hostname"],
    ["hostname with a control character", { code: "cen_x", hostname: "rig\n7" }, "hostname"],
    ["hostname not a string", { code: "cen_x", hostname: 7 }, "hostname"],
    ["project_id not a UUID", { code: "cen_x", project_id: "nope" }, "project_id"],
  ];
  for (const [label, body, field] of bad) {
    it(`${label} → 400 (${field})`, async () => {
      expectError(await enroll(body), 400, "ValidationFailed", field);
    });
  }

  it("a bad body does not spend the code; malformed JSON → 400", async () => {
    const project = await t.project();
    const { code } = await issue(project);
    expectError(await enroll({ code, hostname: "" }), 400, "ValidationFailed", "hostname");
    expect((await t.request(ENROLL, { rawBody: "{" })).status).toBe(400);
    expect((await enroll({ code })).status).toBe(200);
  });

  it("a body over 64 KiB → 413", async () => {
    const res = await t.request(ENROLL, { rawBody: JSON.stringify({ code: "x".repeat(70_000) }) });
    expectError(res, 413, "PayloadTooLarge");
  });
});

describe("POST /api/edge/agents/enroll: limits and public URLs", () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await TestServer.start({
      ENROLL_RATE_LIMIT: "3",
      PUBLIC_URL: "https://caudal.example.com:8443/",
    });
  });
  afterAll(async () => t.stop());

  it("mqtt_url takes PUBLIC_URL's host and the broker's port", async () => {
    const project = await t.project();
    const issued = await t.request<{ code: string }>(`/api/edge/projects/${project}/enrollment-codes`, {
      method: "POST",
      token: (await t.admin()).token,
    });
    const res = await t.request<Enrollment>(ENROLL, { body: { code: issued.body.code } });
    expect(res.status).toBe(200);
    expect(res.body.mqtt_url).toBe(`mqtt://caudal.example.com:${t.server.broker.port}`);
  });

  it("429 with Retry-After past ENROLL_RATE_LIMIT attempts a minute from one address", async () => {
    // The test above used one attempt of this minute.
    for (let i = 0; i < 2; i++)
      expectError(await t.request(ENROLL, { body: { code: "cen_x" } }), 401, "InvalidEnrollmentCode");
    const limited = await t.request(ENROLL, { body: { code: "cen_x" } });
    expectError(limited, 429, "RateLimited");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    t.clock.advance(60_000);
    expectError(await t.request(ENROLL, { body: { code: "cen_x" } }), 401, "InvalidEnrollmentCode");
  });
});
