import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestServer } from "../../testing/harness.ts";

type Entry = {
  seq: number;
  id: string;
  at: string;
  user_id: string | null;
  project_id: string | null;
  entity: string;
  entity_id: string;
  action: string;
  before: unknown;
  after: unknown;
  prev_hash: string;
  hash: string;
};
type ErrorBody = { error: string; message: string };

describe("GET /api/audit", () => {
  let t: TestServer;
  let admin: string;
  let p1: string;
  let p2: string;
  let operador: { id: string; token: string };

  const movement = async (projectId: string, token = operador.token) => {
    const res = await t.request<{ id: string }>("/api/movements", {
      token,
      body: {
        project_id: projectId,
        movement_type: "transfer",
        volume_bbls: 10,
        timestamp: "2025-06-01T05:00:00Z",
      },
    });
    expect(res.status).toBe(201);
    return res.body.id;
  };
  const audit = (query: string, token = admin) =>
    t.request<Entry[] & ErrorBody>(`/api/audit${query}`, { token });

  beforeAll(async () => {
    t = await TestServer.start();
    admin = (await t.admin()).token;
    p1 = await t.project();
    p2 = await t.project();
    operador = await t.userWithRole("operador", [p1]);
  });
  afterAll(async () => t.stop());

  it("returns every field of an entry, newest first, for a record create", async () => {
    const id = await movement(p1);
    const res = await audit("?limit=5");
    expect(res.status).toBe(200);
    const [newest] = res.body;
    expect(newest).toMatchObject({
      user_id: operador.id,
      project_id: p1,
      entity: "movement",
      entity_id: id,
      action: "create",
      before: null,
      after: expect.objectContaining({ id, volume_bbls: 10, movement_type: "transfer" }),
    });
    expect(newest?.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(newest?.prev_hash).toBe(res.body[1]?.hash);
    const seqs = res.body.map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => b - a));
  });

  it("filters by project, entity and entity_id", async () => {
    const a = await movement(p1);
    const b = await movement(p2, admin);
    const inP1 = await audit(`?project_id=${p1}&limit=1000`);
    expect(inP1.body.length).toBeGreaterThan(0);
    expect(inP1.body.every((e) => e.project_id === p1)).toBe(true);
    expect(inP1.body.some((e) => e.entity_id === a)).toBe(true);
    expect(inP1.body.some((e) => e.entity_id === b)).toBe(false);
    const one = await audit(`?entity=movement&entity_id=${b}`);
    expect(one.body.map((e) => e.entity_id)).toEqual([b]);
    expect((await audit(`?entity=no-such-entity`)).body).toEqual([]);
  });

  it("from is inclusive and to exclusive on `at`", async () => {
    const project = await t.project();
    const first = await movement(project, admin);
    t.clock.advance(60_000);
    const second = await movement(project, admin);
    const entries = (await audit(`?project_id=${project}&entity=movement`)).body;
    const at = new Map(entries.map((e) => [e.entity_id, e.at]));
    const secondAt = at.get(second) ?? "";
    expect(Date.parse(secondAt) - Date.parse(at.get(first) ?? "")).toBeGreaterThanOrEqual(60_000);
    const ids = async (q: string) =>
      (await audit(`?project_id=${project}&entity=movement${q}`)).body.map((e) => e.entity_id);
    expect(await ids(`&from=${secondAt}`)).toEqual([second]);
    expect(await ids(`&to=${secondAt}`)).toEqual([first]);
    expect(await ids(`&from=${secondAt}&to=${secondAt}`)).toEqual([]);
  });

  it("limit (default 100, max 1000) and before_seq page backwards", async () => {
    for (let i = 0; i < 3; i++) await movement(p1);
    const page1 = await audit("?limit=2");
    expect(page1.body).toHaveLength(2);
    const last = page1.body[1]?.seq ?? 0;
    const page2 = await audit(`?limit=2&before_seq=${last}`);
    expect(page2.body[0]?.seq).toBe(last - 1);
    expect((await audit("")).body.length).toBeLessThanOrEqual(100);
  });

  it("400 naming each bad parameter", async () => {
    for (const [query, field] of [
      ["?project_id=p1", "project_id"],
      ["?from=today", "from"],
      ["?to=2025-06-01", "to"],
      ["?limit=0", "limit"],
      ["?limit=1001", "limit"],
      ["?limit=ten", "limit"],
      ["?before_seq=0", "before_seq"],
      ["?before_seq=1.5", "before_seq"],
      ["?entity=", "entity"],
      ["?from=2025-06-02T00:00:00Z&to=2025-06-01T00:00:00Z", "to"],
    ] as const) {
      const res = await audit(query);
      expect(res.status, query).toBe(400);
      expect(res.body.message, query).toMatch(new RegExp(`(^|; )${field}: `));
    }
  });

  it("superadmin and admin see entries outside any project (user administration)", async () => {
    const created = await t.userWithRole("operador");
    const entries = (await audit(`?entity=user&entity_id=${created.id}`)).body;
    expect(entries.length).toBeGreaterThan(0);
    expect(entries[0]?.project_id).toBeNull();
    const otherAdmin = await t.userWithRole("admin");
    expect((await audit(`?entity=user&entity_id=${created.id}`, otherAdmin.token)).body).toEqual(entries);
  });

  it("a supervisor reads only entries of their projects", async () => {
    const supervisor = await t.userWithRole("supervisor", [p1]);
    await movement(p2, admin);
    const own = await audit("?limit=1000", supervisor.token);
    expect(own.status).toBe(200);
    expect(own.body.length).toBeGreaterThan(0);
    expect(own.body.every((e) => e.project_id === p1)).toBe(true);
    expect((await audit(`?project_id=${p1}`, supervisor.token)).status).toBe(200);
    const foreign = await audit(`?project_id=${p2}`, supervisor.token);
    expect(foreign.status).toBe(404);
    expect((await audit(`?project_id=${randomUUID()}`, supervisor.token)).status).toBe(404);
    const unassigned = await t.userWithRole("supervisor");
    expect((await audit("", unassigned.token)).body).toEqual([]);
  });

  it("401 without a token; 403 for operador and anh_reader", async () => {
    expect((await t.request("/api/audit")).status).toBe(401);
    expect((await t.request("/api/audit", { token: "x.y.z" })).status).toBe(401);
    const reader = await t.userWithRole("anh_reader", [p1]);
    for (const token of [operador.token, reader.token]) {
      const res = await audit(`?project_id=${p1}`, token);
      expect(res.status).toBe(403);
      expect(res.body.error).toBe("Forbidden");
    }
  });

  it("the log has no write routes", async () => {
    const [entry] = (await audit("?limit=1")).body;
    for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
      expect((await t.request("/api/audit", { method, token: admin, body: {} })).status, method).toBe(404);
      expect((await t.request(`/api/audit/${entry?.id}`, { method, token: admin, body: {} })).status).toBe(
        404,
      );
    }
  });
});
