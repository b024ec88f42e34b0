import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTree, expectError } from "../../testing/fixtures/field-fixtures.ts";
import { TestServer } from "../../testing/harness.ts";

type Tree = Awaited<ReturnType<typeof createTree>>;

/** Reads of assets, devices and variables (config:read) for one tree. */
const reads = (x: Tree) => [
  `/api/edge/projects/${x.projectId}/assets`,
  `/api/edge/assets/${x.assetId}`,
  `/api/edge/assets/${x.assetId}/devices`,
  `/api/edge/devices/${x.deviceId}`,
  `/api/edge/devices/${x.deviceId}/variables`,
  `/api/edge/variables/${x.variableId}`,
  `/api/tanks?project_id=${x.projectId}`,
];

/** Every write (config:write), each with a body that would be valid. */
const writes = (x: Tree): [string, string, unknown][] => [
  ["POST", "/api/edge/assets", { project_id: x.projectId, name: "a", asset_type: "well" }],
  ["PUT", `/api/edge/assets/${x.assetId}`, { project_id: x.projectId, name: "a", asset_type: "well" }],
  ["POST", `/api/edge/assets/${x.assetId}/devices`, { name: "d", protocol: "s7" }],
  ["PUT", `/api/edge/devices/${x.deviceId}`, { name: "d", protocol: "s7" }],
  [
    "POST",
    `/api/edge/devices/${x.deviceId}/variables`,
    { alias: `v${randomUUID().slice(0, 6)}`, data_type: "int" },
  ],
  ["PUT", `/api/edge/variables/${x.variableId}`, { alias: "renamed", data_type: "int" }],
  ["DELETE", `/api/edge/variables/${x.variableId}`, undefined],
  ["DELETE", `/api/edge/devices/${x.deviceId}`, undefined],
  ["DELETE", `/api/edge/assets/${x.assetId}`, undefined],
];

const unknownTree = (): Tree => ({
  projectId: randomUUID(),
  assetId: randomUUID(),
  deviceId: randomUUID(),
  variableId: randomUUID(),
});

describe("field model: roles and project scoping", () => {
  let t: TestServer;
  let mine: Tree;
  let theirs: Tree;
  beforeAll(async () => {
    t = await TestServer.start();
    mine = await createTree(t);
    theirs = await createTree(t);
  });
  afterAll(async () => t.stop());

  it("admin reads and writes in any project", async () => {
    const admin = await t.userWithRole("admin");
    for (const path of reads(theirs))
      expect((await t.request(path, { token: admin.token })).status).toBe(200);
    const res = await t.request("/api/edge/assets", {
      token: admin.token,
      body: { project_id: theirs.projectId, name: "by admin", asset_type: "meter" },
    });
    expect(res.status).toBe(201);
  });

  for (const role of ["supervisor", "operador"] as const) {
    it(`${role} reads assigned projects (200) and nothing else (404)`, async () => {
      const user = await t.userWithRole(role, [mine.projectId]);
      for (const path of reads(mine))
        expect([path, (await t.request(path, { token: user.token })).status]).toEqual([path, 200]);
      for (const path of reads(theirs))
        expectError(await t.request(path, { token: user.token }), 404, "NotFound");
    });
  }

  it("supervisor writes in assigned projects; other projects are 404", async () => {
    const own = await createTree(t);
    const sup = await t.userWithRole("supervisor", [own.projectId]);
    const statuses = [];
    for (const [method, path, body] of writes(own)) {
      statuses.push((await t.request(path, { method, body, token: sup.token })).status);
    }
    expect(statuses).toEqual([201, 200, 201, 200, 201, 200, 204, 204, 204]);
    for (const [method, path, body] of writes(theirs)) {
      expectError(await t.request(path, { method, body, token: sup.token }), 404, "NotFound");
    }
  });

  for (const role of ["operador", "anh_reader"] as const) {
    it(`${role} may not write: 403 on own, foreign and unknown ids alike`, async () => {
      const user = await t.userWithRole(role, [mine.projectId]);
      for (const tree of [mine, theirs, unknownTree()]) {
        for (const [method, path, body] of writes(tree)) {
          expectError(await t.request(path, { method, body, token: user.token }), 403, "Forbidden");
        }
      }
      expect(
        (await t.request(`/api/edge/variables/${mine.variableId}`, { token: (await t.admin()).token }))
          .status,
      ).toBe(200);
    });
  }

  it("anh_reader may not read device configuration (403)", async () => {
    const reader = await t.userWithRole("anh_reader", [mine.projectId]);
    for (const path of reads(mine))
      expectError(await t.request(path, { token: reader.token }), 403, "Forbidden");
  });
});
