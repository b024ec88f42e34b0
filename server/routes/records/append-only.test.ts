import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestServer } from "../../testing/harness.ts";
import { tableProbe } from "../../testing/table-probe.ts";

/** The storage itself refuses edits of records (migration 0003): API MPMS 21.1 §5, "original and unaltered". */
describe("operational records: append-only in storage", () => {
  let t: TestServer;
  let admin: string;
  beforeAll(async () => {
    t = await TestServer.start();
    admin = (await t.admin()).token;
  });
  afterAll(async () => t.stop());

  async function seed(projectId: string) {
    const meter = await t.asset(projectId, "meter");
    const well = await t.asset(projectId, "well");
    const post = async (path: string, body: Record<string, unknown>) => {
      const res = await t.request<{ id: string }>(path, {
        token: admin,
        body: { project_id: projectId, ...body },
      });
      expect(res.status, path).toBe(201);
      return res.body.id;
    };
    return {
      meter,
      well,
      movement: await post("/api/movements", {
        movement_type: "production",
        volume_bbls: 100,
        timestamp: "2025-06-01T05:00:00Z",
      }),
      downtime: await post("/api/downtime", { reason: "power", started_at: "2025-06-01T05:00:00Z" }),
      wellTest: await post("/api/well-tests", { asset_id: well, test_date: "2025-06-01T05:00:00Z" }),
      lab: await post("/api/lab-results", { sample_date: "2025-06-01T05:00:00Z", api_gravity: 20 }),
      reading: await post("/api/meters/readings", {
        meter_id: meter,
        reading_value: 5,
        read_at: "2025-06-01T05:00:00Z",
      }),
    };
  }

  const count = (table: string, id: string) => tableProbe(t.server).count(table, { id });

  it("UPDATE and DELETE of any record table are refused", async () => {
    const project = await t.project();
    const ids = await seed(project);
    const probe = tableProbe(t.server);
    const cases = [
      ["movements", "volume_bbls = 1", ids.movement],
      ["downtime", "reason = 'none'", ids.downtime],
      ["well_tests", "oil_rate_bopd = 1", ids.wellTest],
      ["lab_results", "api_gravity = 30", ids.lab],
      ["meter_readings", "reading_value = 0", ids.reading],
    ] as const;
    for (const [table, set, id] of cases) {
      await expect(probe.run(`UPDATE ${table} SET ${set} WHERE id = ?`, [id]), table).rejects.toThrow(
        /append-only/,
      );
      await expect(
        probe.run(`UPDATE ${table} SET supersedes = id WHERE id = ?`, [id]),
        table,
      ).rejects.toThrow(/append-only/);
      await expect(probe.run(`DELETE FROM ${table} WHERE id = ?`, [id]), table).rejects.toThrow(
        /append-only/,
      );
      expect(await count(table, id), table).toBe(1);
      // created_by alone may change: ON DELETE SET NULL when its user is removed.
      expect(await probe.run(`UPDATE ${table} SET created_by = NULL WHERE id = ?`, [id]), table).toBe(1);
    }
  });

  it("deleting the project still removes its records; the audit log keeps their entries", async () => {
    const project = await t.project();
    const ids = await seed(project);
    const res = await t.request(`/api/edge/projects/${project}`, { method: "DELETE", token: admin });
    expect(res.status).toBe(204);
    expect(await count("movements", ids.movement)).toBe(0);
    expect(await count("meter_readings", ids.reading)).toBe(0);
    expect(await count("well_tests", ids.wellTest)).toBe(0);
    const audit = await t.request<{ entity: string }[]>(`/api/audit?project_id=${project}&limit=1000`, {
      token: admin,
    });
    expect(audit.body.map((e) => e.entity)).toEqual(
      expect.arrayContaining(["movement", "downtime", "well_test", "lab_result", "meter_reading", "project"]),
    );
    expect((await t.request<{ valid: boolean }>("/api/audit/verify", { token: admin })).body.valid).toBe(
      true,
    );
  });

  it("an asset named by records cannot be deleted (409): the records stay", async () => {
    const project = await t.project();
    const ids = await seed(project);
    const res = await t.request(`/api/edge/assets/${ids.meter}`, { method: "DELETE", token: admin });
    expect(res.status).toBe(409);
    expect(await count("meter_readings", ids.reading)).toBe(1);
    expect(await count("movements", ids.movement)).toBe(1);
  });

  // On PostgreSQL the delete's "no records?" check and a record's insert run side by side.
  it("an asset deleted while well tests are recorded for it: either it goes or they stay, never a 500", async () => {
    for (let round = 0; round < 5; round++) {
      const project = await t.project();
      const well = await t.asset(project, "well");
      const [deleted, ...recorded] = await Promise.all([
        t.request(`/api/edge/assets/${well}`, { method: "DELETE", token: admin }),
        ...Array.from({ length: 4 }, () =>
          t.request<{ id: string }>("/api/well-tests", {
            token: admin,
            body: { project_id: project, asset_id: well, test_date: "2025-06-01T05:00:00Z" },
          }),
        ),
      ]);
      const stored = recorded.filter((r) => r.status === 201);
      // 400: asset_id names no asset of the project (it went first).
      expect(recorded.map((r) => r.status).filter((s) => s !== 201 && s !== 400)).toEqual([]);
      // Deleted: no record was accepted for it. Refused: every accepted record is still there.
      if (deleted.status === 204) expect(stored).toEqual([]);
      else expect(deleted.status).toBe(409);
      for (const r of stored) expect(await count("well_tests", r.body.id)).toBe(1);
    }
  });
});
