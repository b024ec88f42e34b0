import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTree } from "../../testing/fixtures/field-fixtures.ts";
import { type ApiResponse, TestServer } from "../../testing/harness.ts";

/*
 * A parent deleted while children are created under it. On PostgreSQL the two run side by side at
 * READ COMMITTED: a child whose parent went first must be refused as it would be had it come
 * second (the parent's 404, or the 400 naming the field), never a 500 from the foreign key; a
 * child that was created must be gone with its parent or its parent must still be there.
 */
describe("field model: a delete racing creates under what it deletes", () => {
  let t: TestServer;
  let token: string;
  beforeAll(async () => {
    t = await TestServer.start();
    token = (await t.admin()).token;
  });
  afterAll(async () => t.stop());

  const del = (path: string) => t.request(path, { method: "DELETE", token });
  const post = (path: string, body: Record<string, unknown>) =>
    t.request<{ id: string }>(path, { token, body });

  type Tree = Awaited<ReturnType<typeof createTree>>;

  /**
   * Five rounds of `remove` against four `create`s at once. Each round the delete must succeed;
   * each create must be refused as if it came after it (404 for the parent in the path, 400 for
   * one named in the body) or succeed, and then its row must have gone with the parent.
   */
  async function race(
    remove: (tree: Tree) => Promise<ApiResponse>,
    create: (tree: Tree) => Promise<ApiResponse<{ id: string }>>,
    childPath: string,
  ): Promise<void> {
    for (let round = 0; round < 5; round++) {
      const tree = await createTree(t);
      const [deleted, ...created] = await Promise.all([
        remove(tree),
        ...Array.from({ length: 4 }, () => create(tree)),
      ]);
      const seen = JSON.stringify({ deleted: deleted.status, created: created.map((r) => r.status) });
      expect(deleted.status, seen).toBe(204);
      expect(created.filter((r) => ![201, 400, 404].includes(r.status)).length, seen).toBe(0);
      for (const child of created.filter((r) => r.status === 201)) {
        expect((await t.request(`${childPath}/${child.body.id}`, { token })).status, seen).toBe(404);
      }
    }
  }

  it("an asset deleted while devices are added to it", async () => {
    await race(
      (tree) => del(`/api/edge/assets/${tree.assetId}`),
      (tree) =>
        post(`/api/edge/assets/${tree.assetId}/devices`, {
          name: `plc-${randomUUID().slice(0, 8)}`,
          protocol: "modbus_tcp",
        }),
      "/api/edge/devices",
    );
  });

  it("a device deleted while variables are added to it", async () => {
    await race(
      (tree) => del(`/api/edge/devices/${tree.deviceId}`),
      (tree) =>
        post(`/api/edge/devices/${tree.deviceId}/variables`, {
          alias: `tag_${randomUUID().slice(0, 8)}`,
          data_type: "float",
        }),
      "/api/edge/variables",
    );
  });

  it("a project deleted while assets are added to it", async () => {
    await race(
      (tree) => del(`/api/edge/projects/${tree.projectId}`),
      (tree) =>
        post("/api/edge/assets", {
          project_id: tree.projectId,
          name: `w-${randomUUID().slice(0, 8)}`,
          asset_type: "well",
        }),
      "/api/edge/assets",
    );
  });
});
