import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  fieldRowCounts,
  remaining,
  seedDependents,
  seedTelemetry,
} from "../../../testing/fixtures/cascade-fixtures.ts";
import { createTree, expectError } from "../../../testing/fixtures/field-fixtures.ts";
import { TestServer } from "../../../testing/harness.ts";

/** Spec §4: DELETE /edge/projects/{id} removes "project and all its resources". */
describe("edge projects: DELETE cascades to everything under the project", () => {
  let t: TestServer;
  let token: string;
  let userId: string;
  beforeAll(async () => {
    t = await TestServer.start();
    token = (await t.admin()).token;
    const row = t.server.context.sqlite
      .prepare("SELECT id FROM users WHERE email = 'root@caudal.test'")
      .get() as {
      id: string;
    };
    userId = row.id;
  });
  afterAll(async () => t.stop());

  it("removes assets, devices, variables and every dependent row; a sibling project is untouched", async () => {
    const { sqlite } = t.server.context;
    const doomed = await createTree(t);
    const kept = await createTree(t);
    const doomedRows = seedDependents(sqlite, { ...doomed, userId });
    const keptRows = seedDependents(sqlite, { ...kept, userId });
    const doomedSeries = doomedRows.get("telemetry_series")?.id;
    const keptSeries = keptRows.get("telemetry_series")?.id;
    seedTelemetry(sqlite, doomedSeries);
    seedTelemetry(sqlite, keptSeries);

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
    const before = remaining(sqlite, doomedRows, doomedSeries);
    expect(Object.values(before).every((n) => n > 0)).toBe(true);

    const res = await t.request(`/api/edge/projects/${doomed.projectId}`, { method: "DELETE", token });
    expect(res.status).toBe(204);

    const after = remaining(sqlite, doomedRows, doomedSeries);
    expect(Object.entries(after).filter(([, n]) => n > 0)).toEqual([]);
    expect(fieldRowCounts(sqlite, doomed)).toEqual({ projects: 0, assets: 0, devices: 0, variables: 0 });
    expect(sqlite.prepare("PRAGMA foreign_key_check").all()).toEqual([]);

    expectError(await t.request(`/api/edge/assets/${doomed.assetId}`, { token }), 404, "NotFound");
    expectError(await t.request(`/api/edge/devices/${doomed.deviceId}`, { token }), 404, "NotFound");
    expectError(await t.request(`/api/edge/variables/${doomed.variableId}`, { token }), 404, "NotFound");

    expect(Object.values(remaining(sqlite, keptRows, keptSeries)).every((n) => n > 0)).toBe(true);
    expect(fieldRowCounts(sqlite, kept)).toEqual({ projects: 1, assets: 1, devices: 1, variables: 1 });
    expect((await t.request(`/api/edge/projects/${kept.projectId}/full`, { token })).status).toBe(200);
  });

  it("the audit entry of the delete keeps the removed configuration tree", async () => {
    const tree = await createTree(t);
    await t.request(`/api/edge/projects/${tree.projectId}`, { method: "DELETE", token });
    const entry = t.server.context.sqlite
      .prepare(
        "SELECT before FROM audit_log WHERE entity = 'project' AND entity_id = ? AND action = 'delete'",
      )
      .get(tree.projectId) as { before: string };
    expect(JSON.parse(entry.before)).toMatchObject({
      id: tree.projectId,
      assets: [{ id: tree.assetId, devices: [{ id: tree.deviceId, variables: [{ id: tree.variableId }] }] }],
    });
  });
});
