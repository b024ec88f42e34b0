import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  danglingReferences,
  fieldRowCounts,
  remaining,
  seedDependents,
  seedTelemetry,
} from "../../../testing/fixtures/cascade-fixtures.ts";
import { createTree, expectError } from "../../../testing/fixtures/field-fixtures.ts";
import { TestServer } from "../../../testing/harness.ts";
import { tableProbe } from "../../../testing/table-probe.ts";

/** Spec §4: DELETE /edge/projects/{id} removes "project and all its resources". */
describe("edge projects: DELETE cascades to everything under the project", () => {
  let t: TestServer;
  let token: string;
  let userId: string;
  beforeAll(async () => {
    t = await TestServer.start();
    token = (await t.admin()).token;
    const root = await t.server.store.identity.userByEmail("root@caudal.test");
    if (!root) throw new Error("no root user");
    userId = root.id;
  });
  afterAll(async () => t.stop());

  it("removes assets, devices, variables and every dependent row; a sibling project is untouched", async () => {
    const probe = tableProbe(t.server);
    const doomed = await createTree(t);
    const kept = await createTree(t);
    const doomedRows = await seedDependents(probe, { ...doomed, userId });
    const keptRows = await seedDependents(probe, { ...kept, userId });
    const doomedSeries = doomedRows.get("telemetry_series")?.id;
    const keptSeries = keptRows.get("telemetry_series")?.id;
    await seedTelemetry(probe, doomedSeries);
    await seedTelemetry(probe, keptSeries);

    // The tables the brief names must be among those seeded (the seeding follows the schema).
    expect([...doomedRows.keys()]).toEqual(
      expect.arrayContaining([
        "telemetry_series",
        "alert_rules",
        "alarms",
        "alarm_events",
        "movements",
        "well_tests",
        "meter_readings",
        "anh_reports",
        "deployments",
        "agent_logs",
        "agent_status",
        "invoices",
        "subscriptions",
        "user_projects",
      ]),
    );
    const before = await remaining(probe, doomedRows, doomedSeries);
    expect(Object.values(before).every((n) => n > 0)).toBe(true);

    const res = await t.request(`/api/edge/projects/${doomed.projectId}`, { method: "DELETE", token });
    expect(res.status).toBe(204);

    const after = await remaining(probe, doomedRows, doomedSeries);
    expect(Object.entries(after).filter(([, n]) => n > 0)).toEqual([]);
    expect(await fieldRowCounts(probe, doomed)).toEqual({ projects: 0, assets: 0, devices: 0, variables: 0 });
    expect(await danglingReferences(probe)).toEqual([]);

    expectError(await t.request(`/api/edge/assets/${doomed.assetId}`, { token }), 404, "NotFound");
    expectError(await t.request(`/api/edge/devices/${doomed.deviceId}`, { token }), 404, "NotFound");
    expectError(await t.request(`/api/edge/variables/${doomed.variableId}`, { token }), 404, "NotFound");

    expect(Object.values(await remaining(probe, keptRows, keptSeries)).every((n) => n > 0)).toBe(true);
    expect(await fieldRowCounts(probe, kept)).toEqual({ projects: 1, assets: 1, devices: 1, variables: 1 });
    expect((await t.request(`/api/edge/projects/${kept.projectId}/full`, { token })).status).toBe(200);
  });

  it("the audit entry of the delete keeps the removed configuration tree", async () => {
    const tree = await createTree(t);
    await t.request(`/api/edge/projects/${tree.projectId}`, { method: "DELETE", token });
    const entries = await t.server.store.audit.list({
      entity: "project",
      entityId: tree.projectId,
      limit: 10_000,
    });
    const entry = entries.find((e) => e.action === "delete");
    expect(entry?.before).toMatchObject({
      id: tree.projectId,
      assets: [{ id: tree.assetId, devices: [{ id: tree.deviceId, variables: [{ id: tree.variableId }] }] }],
    });
  });
});
