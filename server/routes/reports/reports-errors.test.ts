import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createProject, expectError, postRecord } from "../../testing/fixtures/report-fixtures.ts";
import { TestServer } from "../../testing/harness.ts";

const DAY = "2025-03-10";

describe("ANH reports: 400, 401, 403, 404", () => {
  let t: TestServer;
  let admin: string;
  let projectId: string;
  let otherProject: string;
  let reportId: string;

  beforeAll(async () => {
    t = await TestServer.start();
    admin = (await t.admin()).token;
    projectId = await createProject(t);
    otherProject = await createProject(t);
    // DAY ended before the project was created: a record of it (a backfilled history) lets it be reported.
    await postRecord(t, "movements", {
      project_id: projectId,
      movement_type: "production",
      volume_bbls: 10,
      timestamp: "2025-03-10T15:00:00.000Z",
    });
    const res = await t.request<{ id: string }>("/api/anh/reports/generate", {
      token: admin,
      body: { project_id: projectId, report_date: DAY },
    });
    expect(res.status).toBe(201);
    reportId = res.body.id;
  });
  afterAll(async () => t.stop());

  const readPaths = () => [
    "/api/anh/reports",
    `/api/anh/reports/${reportId}`,
    `/api/anh/reports/${reportId}/download`,
    `/api/anh/reports/${reportId}/hash`,
  ];

  it("401 without a token or with a bad one, on every route", async () => {
    for (const path of readPaths()) {
      expectError(await t.request(path), 401, "Unauthorized");
      expectError(await t.request(path, { token: "not-a-jwt" }), 401, "Unauthorized");
    }
    expectError(
      await t.request("/api/anh/reports/generate", { body: { project_id: projectId, report_date: DAY } }),
      401,
      "Unauthorized",
    );
    expectError(
      await t.request(`/api/anh/reports/${reportId}/submit`, { method: "POST" }),
      401,
      "Unauthorized",
    );
  });

  it("anh_reader reads (reports:read) but may not generate or submit (403)", async () => {
    const reader = await t.userWithRole("anh_reader", [projectId]);
    for (const path of readPaths()) {
      expect((await t.request(path, { token: reader.token })).status, path).toBe(200);
    }
    expectError(
      await t.request("/api/anh/reports/generate", {
        token: reader.token,
        body: { project_id: projectId, report_date: DAY },
      }),
      403,
      "Forbidden",
    );
    expectError(
      await t.request(`/api/anh/reports/${reportId}/submit`, { method: "POST", token: reader.token }),
      403,
      "Forbidden",
    );
  });

  it("operador may not generate (403), even with an invalid body", async () => {
    const operador = await t.userWithRole("operador", [projectId]);
    expectError(
      await t.request("/api/anh/reports/generate", { token: operador.token, body: { report_date: "x" } }),
      403,
      "Forbidden",
    );
  });

  it("404 for reports and projects outside the caller's, and for unknown ids", async () => {
    const outsider = await t.userWithRole("supervisor", [otherProject]);
    for (const path of readPaths().slice(1))
      expectError(await t.request(path, { token: outsider.token }), 404, "NotFound");
    expectError(
      await t.request(`/api/anh/reports?project_id=${projectId}`, { token: outsider.token }),
      404,
      "NotFound",
    );
    const listed = await t.request<unknown[]>("/api/anh/reports", { token: outsider.token });
    expect(listed.body).toEqual([]);
    expectError(
      await t.request("/api/anh/reports/generate", {
        token: outsider.token,
        body: { project_id: projectId, report_date: DAY },
      }),
      404,
      "NotFound",
    );
    expectError(
      await t.request(`/api/anh/reports/${reportId}/submit`, { method: "POST", token: outsider.token }),
      404,
      "NotFound",
    );
    const unknown = randomUUID();
    for (const suffix of ["", "/download", "/hash"]) {
      expectError(await t.request(`/api/anh/reports/${unknown}${suffix}`, { token: admin }), 404, "NotFound");
    }
    expectError(
      await t.request(`/api/anh/reports/${unknown}/submit`, { method: "POST", token: admin }),
      404,
      "NotFound",
    );
    expectError(
      await t.request("/api/anh/reports/generate", {
        token: admin,
        body: { project_id: unknown, report_date: DAY },
      }),
      404,
      "NotFound",
    );
    expectError(await t.request(`/api/anh/reports?project_id=${unknown}`, { token: admin }), 404, "NotFound");
  });

  it("400 naming each bad field", async () => {
    const gen = (body: unknown) => t.request("/api/anh/reports/generate", { token: admin, body });
    expectError(await gen({ report_date: DAY }), 400, "ValidationFailed", "project_id");
    expectError(await gen({ project_id: "nope", report_date: DAY }), 400, "ValidationFailed", "project_id");
    expectError(await gen({ project_id: projectId }), 400, "ValidationFailed", "report_date");
    expectError(
      await gen({ project_id: projectId, report_date: "10/03/2025" }),
      400,
      "ValidationFailed",
      "report_date",
    );
    expectError(
      await gen({ project_id: projectId, report_date: "2025-02-30" }),
      400,
      "ValidationFailed",
      "report_date",
    );
    expectError(
      await gen({ project_id: projectId, report_date: 20250310 }),
      400,
      "ValidationFailed",
      "report_date",
    );
    const raw = await t.request("/api/anh/reports/generate", { token: admin, rawBody: "{not json" });
    expect(raw.status).toBe(400);
    for (const suffix of ["", "/download", "/hash"]) {
      expectError(
        await t.request(`/api/anh/reports/not-a-uuid${suffix}`, { token: admin }),
        400,
        "ValidationFailed",
        "id",
      );
    }
    expectError(
      await t.request("/api/anh/reports/not-a-uuid/submit", { method: "POST", token: admin }),
      400,
      "ValidationFailed",
      "id",
    );
    expectError(
      await t.request("/api/anh/reports?project_id=42", { token: admin }),
      400,
      "ValidationFailed",
      "project_id",
    );
  });

  it("a project whose time zone the runtime does not know gets 409, not 500", async () => {
    const broken = await createProject(t);
    await t.server.store.field.updateProject(broken, { timezone: "Mars/Olympus" });
    const res = await t.request<{ error: string }>("/api/anh/reports/generate", {
      token: admin,
      body: { project_id: broken, report_date: DAY },
    });
    expectError(res, 409, "Conflict");
  });
});
