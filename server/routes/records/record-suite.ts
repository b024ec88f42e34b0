import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiResponse, TestServer } from "../../testing/harness.ts";

/*
 * The behaviour every operational record endpoint shares (spec §4, "Operations (ANH 0651)"),
 * run over real HTTP once per record type by its *.test.ts file.
 */

export type Body = Record<string, unknown>;
type ErrorBody = { error: string; message: string };
type RecordBody = Body & { id: string; superseded_by: string | null };
type AuditBody = { entity: string; entity_id: string; action: string; user_id: string; after: Body }[];

export type RecordSuiteSpec = {
  /** e.g. "/api/movements" */
  path: string;
  /** The audit log's entity name. */
  entity: string;
  /** The record's own instant, which from/to filter and the list orders by. */
  instant: string;
  /** Every field that carries an instant (echoed normalised to UTC). */
  instants: string[];
  /** A valid body for the project, every optional field set; may create assets through `t`. */
  valid(t: TestServer, projectId: string): Promise<Body>;
  /** Bodies that must be refused with a 400 naming `field` (`undefined` value: field left out). */
  invalid: [field: string, value: unknown][];
};

export type RecordSuiteContext = {
  t: TestServer;
  admin: string;
  operador: { id: string; token: string };
  project: string;
  otherProject: string;
  post(body: Body, token?: string): Promise<ApiResponse<RecordBody & ErrorBody>>;
  list(query?: string, token?: string): Promise<ApiResponse<RecordBody[] & ErrorBody>>;
};

/** Starts a server, a project the operador is assigned to and one they are not; runs the shared tests. */
export function recordSuite(spec: RecordSuiteSpec, extra?: (s: () => RecordSuiteContext) => void): void {
  let s: RecordSuiteContext;
  const ctx = () => s;

  beforeAll(async () => {
    const t = await TestServer.start();
    const admin = (await t.admin()).token;
    const project = await t.project();
    const otherProject = await t.project();
    const operador = await t.userWithRole("operador", [project]);
    s = {
      t,
      admin,
      operador,
      project,
      otherProject,
      post: (body, token = operador.token) => t.request(spec.path, { body, token }),
      list: (query = "", token = operador.token) => t.request(`${spec.path}${query}`, { token }),
    };
  });
  afterAll(async () => s.t.stop());

  const withInstant = (body: Body, iso: string) => ({ ...body, [spec.instant]: iso });

  describe(`${spec.path}: create and echo`, () => {
    it("201 with every input field, the correction fields and who entered it", async () => {
      const body = await spec.valid(s.t, s.project);
      const res = await s.post(body);
      expect(res.status).toBe(201);
      for (const [field, value] of Object.entries(body)) {
        const expected =
          spec.instants.includes(field) && typeof value === "string" ? new Date(value).toISOString() : value;
        expect(res.body[field], field).toEqual(expected);
      }
      expect(res.body.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(res.body).toMatchObject({
        project_id: s.project,
        supersedes: null,
        correction_reason: null,
        superseded_by: null,
        created_by: s.operador.id,
      });
      expect(new Date(String(res.body.created_at)).toISOString()).toBe(res.body.created_at);
      const listed = await s.list(`?project_id=${s.project}`);
      expect(listed.body.find((r) => r.id === res.body.id)).toEqual(res.body);
    });

    it("appends an audit entry for the create, in the same write", async () => {
      const created = await s.post(await spec.valid(s.t, s.project));
      const audit = await s.t.request<AuditBody>(
        `/api/audit?project_id=${s.project}&entity=${spec.entity}&entity_id=${created.body.id}`,
        { token: s.admin },
      );
      expect(audit.status).toBe(200);
      expect(audit.body).toHaveLength(1);
      const { superseded_by: _derived, ...stored } = created.body;
      expect(audit.body[0]).toMatchObject({ action: "create", user_id: s.operador.id, after: stored });
    });
  });

  describe(`${spec.path}: validation`, () => {
    it.each(spec.invalid)("400 naming %s (%j), nothing written", async (field, value) => {
      const before = (await s.list(`?project_id=${s.project}`)).body.length;
      const body: Body = { ...(await spec.valid(s.t, s.project)), [field]: value };
      if (value === undefined) delete body[field];
      const res = await s.post(body);
      expect(res.status, res.text).toBe(400);
      expect(res.body.error).toBe("ValidationFailed");
      expect(res.body.message).toMatch(new RegExp(`(^|; )${field}: `));
      expect((await s.list(`?project_id=${s.project}`)).body.length).toBe(before);
    });

    it("400 on a body that is not JSON", async () => {
      const res = await s.t.request<ErrorBody>(spec.path, { rawBody: "{not json", token: s.operador.token });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/BadRequest|ValidationFailed/);
    });

    it("400 naming each bad list parameter", async () => {
      for (const [query, field] of [
        ["?project_id=nope", "project_id"],
        ["?from=yesterday", "from"],
        ["?to=2025-06-01", "to"],
        ["?limit=0", "limit"],
        ["?limit=10001", "limit"],
        ["?limit=abc", "limit"],
        ["?from=2025-06-02T00:00:00Z&to=2025-06-01T00:00:00Z", "to"],
      ] as const) {
        const res = await s.list(query);
        expect(res.status, query).toBe(400);
        expect(res.body.message, query).toMatch(new RegExp(`(^|; )${field}: `));
      }
    });
  });

  describe(`${spec.path}: corrections are new records`, () => {
    it("B supersedes A: A shows superseded_by B; A cannot be superseded again (409)", async () => {
      const base = await spec.valid(s.t, s.project);
      const a = await s.post(base);
      expect(a.status).toBe(201);
      const b = await s.post({ ...base, supersedes: a.body.id, correction_reason: "meter factor applied" });
      expect(b.status, JSON.stringify(b.body)).toBe(201);
      expect(b.body).toMatchObject({
        supersedes: a.body.id,
        correction_reason: "meter factor applied",
        superseded_by: null,
      });

      const listed = await s.list(`?project_id=${s.project}&limit=10000`);
      const byId = new Map(listed.body.map((r) => [r.id, r]));
      expect(byId.get(a.body.id)?.superseded_by).toBe(b.body.id);
      expect(byId.get(b.body.id)?.superseded_by).toBeNull();
      // The original stays exactly as entered (API MPMS 21.1: original and unaltered).
      expect({ ...byId.get(a.body.id), superseded_by: null }).toEqual(a.body);

      const again = await s.post({ ...base, supersedes: a.body.id, correction_reason: "second try" });
      expect(again.status).toBe(409);
      expect(again.body.error).toBe("Conflict");
      expect(again.body.message).toContain(b.body.id);

      const c = await s.post({ ...base, supersedes: b.body.id, correction_reason: "correct the correction" });
      expect(c.status).toBe(201);
    });

    it("correction_reason is required with supersedes and refused without it", async () => {
      const base = await spec.valid(s.t, s.project);
      const a = await s.post(base);
      const noReason = await s.post({ ...base, supersedes: a.body.id });
      expect(noReason.status).toBe(400);
      expect(noReason.body.message).toMatch(/^correction_reason: /);
      const blank = await s.post({ ...base, supersedes: a.body.id, correction_reason: "   " });
      expect(blank.status).toBe(400);
      const stray = await s.post({ ...base, correction_reason: "nothing to correct" });
      expect(stray.status).toBe(400);
      expect(stray.body.message).toMatch(/^correction_reason: /);
    });

    it("404 when supersedes is unknown or a record of another project", async () => {
      const base = await spec.valid(s.t, s.project);
      const unknown = await s.post({ ...base, supersedes: randomUUID(), correction_reason: "typo" });
      expect(unknown.status).toBe(404);
      expect(unknown.body.message).toMatch(/supersede/);

      const foreignBody = await spec.valid(s.t, s.otherProject);
      const foreign = await s.post(foreignBody, s.admin);
      expect(foreign.status).toBe(201);
      const cross = await s.post(
        { ...base, supersedes: foreign.body.id, correction_reason: "typo" },
        s.admin,
      );
      expect(cross.status).toBe(404);
    });

    it("no route edits or deletes a record", async () => {
      const a = await s.post(await spec.valid(s.t, s.project));
      for (const method of ["PUT", "PATCH", "DELETE"]) {
        const res = await s.t.request(`${spec.path}/${a.body.id}`, {
          method,
          token: s.admin,
          body: method === "DELETE" ? undefined : {},
        });
        expect(res.status, method).toBe(404);
      }
    });
  });

  describe(`${spec.path}: authentication, roles and projects`, () => {
    it("401 without or with a bad token", async () => {
      const body = await spec.valid(s.t, s.project);
      expect((await s.t.request(spec.path)).status).toBe(401);
      expect((await s.t.request(spec.path, { body })).status).toBe(401);
      expect((await s.t.request(spec.path, { token: "not-a-jwt" })).status).toBe(401);
      expect((await s.t.request(spec.path, { body, token: "not-a-jwt" })).status).toBe(401);
    });

    it("anh_reader lists (records:read) but may not create (403)", async () => {
      const reader = await s.t.userWithRole("anh_reader", [s.project]);
      const created = await s.post(await spec.valid(s.t, s.project));
      const denied = await s.post(await spec.valid(s.t, s.project), reader.token);
      expect(denied.status).toBe(403);
      expect(denied.body.error).toBe("Forbidden");
      const listed = await s.list(`?project_id=${s.project}`, reader.token);
      expect(listed.status).toBe(200);
      expect(listed.body.some((r) => r.id === created.body.id)).toBe(true);
    });

    it("supervisor and admin create too (records:write)", async () => {
      const supervisor = await s.t.userWithRole("supervisor", [s.project]);
      expect((await s.post(await spec.valid(s.t, s.project), supervisor.token)).status).toBe(201);
      expect((await s.post(await spec.valid(s.t, s.project), s.admin)).status).toBe(201);
    });

    it("404 for a project outside the caller's or one that does not exist", async () => {
      const foreign = await s.post(await spec.valid(s.t, s.otherProject));
      expect(foreign.status).toBe(404);
      expect(foreign.body.error).toBe("NotFound");
      expect((await s.list(`?project_id=${s.otherProject}`)).status).toBe(404);
      const missing = randomUUID();
      expect((await s.list(`?project_id=${missing}`, s.admin)).status).toBe(404);
      const ghost = { ...(await spec.valid(s.t, s.project)), project_id: missing };
      expect((await s.post(ghost, s.admin)).status).toBe(404);
    });

    it("without project_id a list holds every project of the caller and no other", async () => {
      const mine = await s.post(await spec.valid(s.t, s.project));
      const theirs = await s.post(await spec.valid(s.t, s.otherProject), s.admin);
      const own = await s.list("?limit=10000");
      expect(own.body.some((r) => r.id === mine.body.id)).toBe(true);
      expect(own.body.every((r) => r.project_id === s.project)).toBe(true);
      const all = await s.list("?limit=10000", s.admin);
      expect(all.body.some((r) => r.id === theirs.body.id)).toBe(true);
      const unassigned = await s.t.userWithRole("operador");
      expect((await s.list("", unassigned.token)).body).toEqual([]);
    });
  });

  describe(`${spec.path}: list window and order`, () => {
    it(`newest ${spec.instant} first; from inclusive, to exclusive; limit`, async () => {
      const project = await s.t.project();
      const base = await spec.valid(s.t, project);
      const times = ["2025-06-01T05:00:00Z", "2025-06-02T05:00:00Z", "2025-06-03T05:00:00Z"];
      const ids: string[] = [];
      for (const iso of times) {
        const res = await s.post(withInstant(base, iso), s.admin);
        expect(res.status).toBe(201);
        ids.push(res.body.id);
      }
      const [d1, d2, d3] = ids;
      const ask = async (query: string) =>
        (await s.list(`?project_id=${project}${query}`, s.admin)).body.map((r) => r.id);
      expect(await ask("")).toEqual([d3, d2, d1]);
      expect(await ask("&from=2025-06-02T05:00:00Z")).toEqual([d3, d2]);
      expect(await ask("&to=2025-06-02T05:00:00Z")).toEqual([d1]);
      // A production day in Bogotá time (UTC−5): 2025-06-02 00:00 to 2025-06-03 00:00 local.
      expect(await ask("&from=2025-06-02T00:00:00-05:00&to=2025-06-03T00:00:00-05:00")).toEqual([d2]);
      expect(await ask("&limit=2")).toEqual([d3, d2]);
    });
  });

  extra?.(ctx);
}
