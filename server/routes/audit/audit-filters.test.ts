import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestServer } from "../../testing/harness.ts";

type ErrorBody = { error: string; message: string };

/**
 * Issue 28 §1 (low): a control character in a text filter of GET /api/audit was a 500 on PostgreSQL
 * (NUL) and an empty list on SQLite. Both engines answer 400 naming the filter; a production-mode
 * server, as the review ran it.
 */
describe("GET /api/audit text filters with control characters", () => {
  let t: TestServer;
  let admin: string;

  beforeAll(async () => {
    t = await TestServer.start({ NODE_ENV: "production" });
    admin = (await t.admin()).token;
    await t.project(); // an audited change, so a good filter has something to find
  });
  afterAll(async () => t?.stop());

  for (const filter of ["entity", "entity_id"]) {
    for (const raw of ["%00", "a%00b", "%01", "x%1Fy", "%7F", "a%0Ab", "%09"]) {
      it(`${filter}=${raw}: 400 naming ${filter}`, async () => {
        const res = await t.request<ErrorBody>(`/api/audit?${filter}=${raw}`, { token: admin });
        expect(res.status, res.text).toBe(400);
        expect(res.body.error).toBe("ValidationFailed");
        expect(res.body.message).toContain(filter);
        expect(res.body.message).toContain("control characters");
      });
    }
  }

  it("text without control characters still filters (project, é, a space)", async () => {
    const found = await t.request<{ entity: string }[]>("/api/audit?entity=project", { token: admin });
    expect(found.status).toBe(200);
    expect(found.body.length).toBeGreaterThan(0);
    for (const raw of ["caf%C3%A9", "a%20b"]) {
      const res = await t.request<unknown[]>(`/api/audit?entity_id=${raw}`, { token: admin });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual([]);
    }
  });
});
