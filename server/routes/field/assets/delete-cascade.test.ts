import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  danglingReferences,
  fieldRowCounts,
  remaining,
  seedDependents,
  seedTelemetry,
} from "../../../testing/fixtures/cascade-fixtures.ts";
import { createTree } from "../../../testing/fixtures/field-fixtures.ts";
import { TestServer } from "../../../testing/harness.ts";
import { tableProbe } from "../../../testing/table-probe.ts";

/** Spec §4: DELETE /edge/assets/{id} removes "its devices"; the project's own rows stay. */
describe("edge assets: DELETE cascades to the asset's rows only", () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await TestServer.start();
  });
  afterAll(async () => t.stop());

  const superadminId = async () => {
    const [root] = (await t.server.store.identity.users()).filter((u) => u.role === "superadmin");
    if (!root) throw new Error("no superadmin");
    return root.id;
  };

  it("refuses (409) an asset that operational records name, and keeps everything", async () => {
    const { token } = await t.admin();
    const probe = tableProbe(t.server);
    const userId = await superadminId();
    const tree = await createTree(t);
    const seeded = await seedDependents(probe, { ...tree, userId });
    const res = await t.request<{ error: string; message: string }>(`/api/edge/assets/${tree.assetId}`, {
      method: "DELETE",
      token,
    });
    expect(res.status).toBe(409);
    expect(res.body.message).toContain("well tests");
    const counts = await remaining(probe, seeded, undefined);
    for (const table of ["well_tests", "meter_readings", "telemetry_series", "alarms"]) {
      expect([table, counts[table]]).toEqual([table, 1]);
    }
    expect(await fieldRowCounts(probe, tree)).toEqual({ projects: 1, assets: 1, devices: 1, variables: 1 });
  });

  it("removes devices, variables, telemetry and alarms; keeps project rows", async () => {
    const { token } = await t.admin();
    const probe = tableProbe(t.server);
    const userId = await superadminId();
    const tree = await createTree(t);
    const seeded = await seedDependents(
      probe,
      { ...tree, userId },
      new Set(["well_tests", "meter_readings"]),
    );
    const seriesId = seeded.get("telemetry_series")?.id;
    await seedTelemetry(probe, seriesId);

    const res = await t.request(`/api/edge/assets/${tree.assetId}`, { method: "DELETE", token });
    expect(res.status).toBe(204);

    const counts = await remaining(probe, seeded, seriesId);
    const assetBound = [
      "telemetry_series",
      "telemetry_raw + telemetry_inbox",
      "telemetry_packed",
      "telemetry_rollup_5m",
      "telemetry_rollup_1h",
      "alarms",
      "alarm_events",
    ];
    for (const table of assetBound) expect([table, counts[table]]).toEqual([table, 0]);
    for (const table of [
      "alert_rules",
      "deployments",
      "agent_logs",
      "movements",
      "anh_reports",
      "user_projects",
    ]) {
      expect([table, counts[table]]).toEqual([table, 1]);
    }
    expect(await fieldRowCounts(probe, tree)).toEqual({ projects: 1, assets: 0, devices: 0, variables: 0 });
    expect(await danglingReferences(probe)).toEqual([]);
  });
});
