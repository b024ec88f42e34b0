import { describe, expect, it } from "vitest";
import { recordSuite } from "../../../testing/fixtures/record-suite.ts";
import type { TestServer } from "../../../testing/harness.ts";

const meters = new Map<string, string>();

/** One meter per project, created through the assets API. */
async function meterOf(t: TestServer, projectId: string): Promise<string> {
  const known = meters.get(projectId);
  if (known) return known;
  const id = await t.asset(projectId, "meter");
  meters.set(projectId, id);
  return id;
}

const valid = async (t: TestServer, projectId: string) => ({
  project_id: projectId,
  meter_id: await meterOf(t, projectId),
  reading_value: 1843210.4,
  read_at: "2025-06-01T06:00:00Z",
  unit: "bbl",
});

recordSuite(
  {
    path: "/api/meters/readings",
    entity: "meter_reading",
    instant: "read_at",
    instants: ["read_at"],
    valid,
    invalid: [
      ["project_id", undefined],
      ["meter_id", undefined],
      ["meter_id", "FT-101"],
      ["reading_value", undefined],
      ["reading_value", -3],
      ["reading_value", null],
      ["read_at", undefined],
      ["read_at", "2025-06-01 06:00"],
      ["unit", "x".repeat(33)],
      ["unit", 5],
    ],
  },
  (s) => {
    describe("/api/meters/readings: specifics", () => {
      it("unit is optional", async () => {
        const res = await s().post({ ...(await valid(s().t, s().project)), unit: undefined });
        expect(res.status).toBe(201);
        expect(res.body.unit).toBeNull();
      });

      it("400 on meter_id that is not a meter of the same project", async () => {
        const { t, project, otherProject, admin } = s();
        const base = await valid(t, project);
        const well = await t.asset(project, "well");
        const wrongType = await s().post({ ...base, meter_id: well });
        expect(wrongType.status).toBe(400);
        expect(wrongType.body.message).toMatch(/^meter_id: .*well, not a meter/);
        const foreignMeter = await t.asset(otherProject, "meter");
        const foreign = await s().post({ ...base, meter_id: foreignMeter }, admin);
        expect(foreign.status).toBe(400);
        expect(foreign.body.message).toMatch(/^meter_id: no asset/);
      });
    });
  },
);
