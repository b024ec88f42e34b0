import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectError } from "../../../testing/fixtures/field-fixtures.ts";
import { TestServer } from "../../../testing/harness.ts";

type Asset = { id: string; project_id: string; asset_type: string };

describe("GET /api/tanks", () => {
  let t: TestServer;
  let token: string;
  let mine: string;
  let theirs: string;
  let myTank: string;
  let theirTank: string;
  beforeAll(async () => {
    t = await TestServer.start();
    token = (await t.admin()).token;
    mine = await t.project();
    theirs = await t.project();
    myTank = await t.asset(mine, "tank");
    await t.asset(mine, "well");
    theirTank = await t.asset(theirs, "tank");
  });
  afterAll(async () => t.stop());

  const ids = (res: { body: Asset[] }) => res.body.map((a) => a.id).sort();

  it("lists tanks only, of every project for the superadmin", async () => {
    const res = await t.request<Asset[]>("/api/tanks", { token });
    expect(res.status).toBe(200);
    expect(res.body.every((a) => a.asset_type === "tank")).toBe(true);
    expect(ids(res)).toEqual([myTank, theirTank].sort());
  });

  it("filters by project_id", async () => {
    const res = await t.request<Asset[]>(`/api/tanks?project_id=${mine}`, { token });
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual([myTank]);
  });

  it("an operador sees only the tanks of assigned projects; another project is 404", async () => {
    const op = await t.userWithRole("operador", [mine]);
    expect(ids(await t.request<Asset[]>("/api/tanks", { token: op.token }))).toEqual([myTank]);
    expect(ids(await t.request<Asset[]>(`/api/tanks?project_id=${mine}`, { token: op.token }))).toEqual([
      myTank,
    ]);
    expectError(await t.request(`/api/tanks?project_id=${theirs}`, { token: op.token }), 404, "NotFound");
    const none = await t.userWithRole("supervisor");
    expect((await t.request<Asset[]>("/api/tanks", { token: none.token })).body).toEqual([]);
  });

  it("anh_reader lacks config:read (403); no token is 401", async () => {
    const reader = await t.userWithRole("anh_reader", [mine]);
    expectError(await t.request("/api/tanks", { token: reader.token }), 403, "Forbidden");
    expectError(await t.request("/api/tanks"), 401, "Unauthorized");
  });

  it("400 for a project_id that is not a UUID; 404 for an unknown one", async () => {
    expectError(
      await t.request("/api/tanks?project_id=abc", { token }),
      400,
      "ValidationFailed",
      "project_id",
    );
    expectError(await t.request(`/api/tanks?project_id=${randomUUID()}`, { token }), 404, "NotFound");
  });
});
