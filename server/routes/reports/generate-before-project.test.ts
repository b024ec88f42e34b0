import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createAsset,
  createProject,
  expectError,
  postRecord,
  setClock,
} from "../../testing/fixtures/report-fixtures.ts";
import { TestServer } from "../../testing/harness.ts";

/*
 * A day that ended before the project was created, with nothing in it, is refused: its report
 * would be 0% complete and stay in the project's hash chain for good. The daily job never opens
 * such a day; a history backfilled into the project can still be reported.
 */

const CREATED = Date.parse("2025-03-12T15:00:00Z"); // 10:00 on the 12th in Bogota
const NOW = Date.parse("2025-03-20T15:00:00Z");

describe("POST /api/anh/reports/generate for a day before the project existed", () => {
  let t: TestServer;
  let admin: string;
  let projectId: string;

  beforeAll(async () => {
    t = await TestServer.start();
    setClock(t, CREATED);
    projectId = await createProject(t);
    setClock(t, NOW);
    admin = (await t.admin()).token;
  });
  afterAll(async () => t.stop());

  const generate = (date: string, project = projectId) =>
    t.request<{ id: string; report_date: string; error?: string; message?: string }>(
      "/api/anh/reports/generate",
      { token: admin, body: { project_id: project, report_date: date } },
    );

  it("is refused with 409 {error, message} when the project holds nothing of it, and nothing is written", async () => {
    const auditBefore = await t.server.store.audit.list({ projectIds: [projectId], limit: 10_000 });
    for (const date of ["2025-03-11", "2024-01-01"]) {
      const res = await generate(date);
      expectError(res, 409, "Conflict");
      expect(res.body.message).toContain(`the production day ${date}`);
      expect(res.body.message).toContain("ended before the project was created");
    }
    const list = await t.request<unknown[]>(`/api/anh/reports?project_id=${projectId}`, { token: admin });
    expect(list.body).toEqual([]);
    const auditAfter = await t.server.store.audit.list({ projectIds: [projectId], limit: 10_000 });
    expect(auditAfter.length).toBe(auditBefore.length);
  });

  it("the day the project was created, and the days after it, are reported even when empty", async () => {
    for (const date of ["2025-03-12", "2025-03-13"]) {
      const res = await generate(date);
      expect(res.status, res.text).toBe(201);
      expect(res.body.report_date).toBe(date);
    }
  });

  it("a day before the project that holds a backfilled record is reported", async () => {
    await postRecord(t, "movements", {
      project_id: projectId,
      movement_type: "production",
      volume_bbls: 120,
      timestamp: "2025-03-05T18:00:00.000Z",
    });
    const res = await generate("2025-03-05");
    expect(res.status, res.text).toBe(201);
  });

  it("a day before the project that holds backfilled readings is reported", async () => {
    const other = await (async () => {
      setClock(t, CREATED);
      const id = await createProject(t);
      setClock(t, NOW);
      admin = (await t.admin()).token;
      return id;
    })();
    const asset = await createAsset(t, other, "Well 1");
    expectError(await generate("2025-03-01", other), 409, "Conflict");
    const upload = await t.request("/api/telemetry/batch", {
      token: admin,
      body: {
        items: [
          {
            asset_id: asset,
            timestamp: "2025-03-01T15:00:00.000Z",
            readings: [{ variable: "pressure", value: 812 }],
          },
        ],
      },
    });
    expect(upload.status, upload.text).toBe(201);
    const res = await generate("2025-03-01", other);
    expect(res.status, res.text).toBe(201);
  });

  it("the OpenAPI document lists the 409 and says when it answers it", async () => {
    type Op = { description?: string; responses: Record<string, unknown> };
    const doc = await t.request<{ paths: Record<string, Record<string, Op>> }>("/docs/openapi.json");
    const op = doc.body.paths["/api/anh/reports/generate"]?.post;
    expect(op?.responses["409"]).toBeDefined();
    expect(op?.description).toContain("ended before the project was created");
  });
});
