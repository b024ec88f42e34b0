import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestServer } from "../../../testing/harness.ts";
import { sqliteConnection } from "../../../testing/sqlite-connection.ts";

/*
 * The ingest caches (asset → project, (asset, variable) → series) are invalidated by temporary
 * triggers on the server's connection; these tests change rows behind the service's back.
 */
describe("telemetry lookups", () => {
  let t: TestServer;
  let projectId: string;
  beforeAll(async () => {
    t = await TestServer.start();
    projectId = await t.project();
  });
  afterAll(async () => t.stop());

  const sql = () => sqliteConnection(t.server);
  const write = (assetId: string, project: string, value: number) =>
    t.server.telemetry.write({
      source: "http",
      series: [
        { projectId: project, assetId, variable: "v", points: [[t.clock.now().getTime() + value, value]] },
      ],
    });
  const seriesIds = (assetId: string) =>
    sql().prepare("SELECT id FROM telemetry_series WHERE asset_id = ?").pluck().all(assetId) as number[];

  it("forgets an asset when it is deleted, directly or with its project", async () => {
    const project = await t.project();
    const [a, b] = [await t.asset(project), await t.asset(project)];
    await write(a, project, 1);
    expect(await t.server.telemetry.projectOfAsset(a)).toBe(project);
    expect(await t.server.telemetry.projectOfAsset(b)).toBe(project);
    sql().prepare("DELETE FROM assets WHERE id = ?").run(a);
    expect(await t.server.telemetry.projectOfAsset(a)).toBeUndefined();
    sql().prepare("DELETE FROM projects WHERE id = ?").run(project);
    expect(await t.server.telemetry.projectOfAsset(b)).toBeUndefined();
  });

  it("follows an asset moved to another project", async () => {
    const other = await t.project();
    const a = await t.asset(projectId);
    expect(await t.server.telemetry.projectOfAsset(a)).toBe(projectId);
    sql().prepare("UPDATE assets SET project_id = ? WHERE id = ?").run(other, a);
    expect(await t.server.telemetry.projectOfAsset(a)).toBe(other);
  });

  it("never writes to a deleted series: the next reading makes a new one", async () => {
    const a = await t.asset(projectId);
    await write(a, projectId, 1);
    const [first] = seriesIds(a);
    sql().prepare("DELETE FROM telemetry_series WHERE asset_id = ?").run(a);
    await write(a, projectId, 2);
    const [second] = seriesIds(a);
    expect(second).toBeDefined();
    expect(second).not.toBe(first);
    const orphans = sql()
      .prepare("SELECT count(*) FROM telemetry_raw WHERE series_id NOT IN (SELECT id FROM telemetry_series)")
      .pluck()
      .get();
    expect(orphans).toBe(0);
  });
});
