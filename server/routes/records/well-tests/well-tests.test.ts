import { describe, expect, it } from "vitest";
import { recordSuite } from "../../../testing/fixtures/record-suite.ts";
import type { TestServer } from "../../../testing/harness.ts";

const wells = new Map<string, string>();

/** One well per project, created through the assets API. */
async function wellOf(t: TestServer, projectId: string): Promise<string> {
  const known = wells.get(projectId);
  if (known) return known;
  const id = await t.asset(projectId, "well");
  wells.set(projectId, id);
  return id;
}

const valid = async (t: TestServer, projectId: string) => ({
  project_id: projectId,
  asset_id: await wellOf(t, projectId),
  test_date: "2025-06-01T10:00:00Z",
  oil_rate_bopd: 412.3,
  water_cut_pct: 37.5,
  gor_scf_bbl: 350,
});

recordSuite(
  {
    path: "/api/well-tests",
    entity: "well_test",
    instant: "test_date",
    instants: ["test_date"],
    valid,
    invalid: [
      ["project_id", undefined],
      ["asset_id", undefined],
      ["asset_id", "well-7"],
      ["test_date", undefined],
      ["test_date", 1717236000],
      ["oil_rate_bopd", -1],
      ["oil_rate_bopd", "412"],
      ["water_cut_pct", -0.1],
      ["water_cut_pct", 100.1],
      ["gor_scf_bbl", -5],
    ],
  },
  (s) => {
    describe("/api/well-tests: specifics", () => {
      it("only the date and the well are required; rates may be null", async () => {
        const res = await s().post({
          project_id: s().project,
          asset_id: await wellOf(s().t, s().project),
          test_date: "2025-06-01T10:00:00Z",
          water_cut_pct: null,
        });
        expect(res.status).toBe(201);
        expect(res.body).toMatchObject({ oil_rate_bopd: null, water_cut_pct: null, gor_scf_bbl: null });
        const edges = await s().post({
          ...(await valid(s().t, s().project)),
          water_cut_pct: 100,
          oil_rate_bopd: 0,
        });
        expect(edges.status).toBe(201);
      });

      it("400 on asset_id that is not a well of the same project", async () => {
        const { t, project, otherProject, admin } = s();
        const base = await valid(t, project);
        const tank = await t.asset(project, "tank");
        const wrongType = await s().post({ ...base, asset_id: tank });
        expect(wrongType.status).toBe(400);
        expect(wrongType.body.message).toMatch(/^asset_id: .*tank/);
        const foreignWell = await t.asset(otherProject, "well");
        const foreign = await s().post({ ...base, asset_id: foreignWell }, admin);
        expect(foreign.status).toBe(400);
        expect(foreign.body.message).toMatch(/^asset_id: no asset/);
        const unknown = await s().post({ ...base, asset_id: crypto.randomUUID() });
        expect(unknown.status).toBe(400);
        expect(unknown.body.message).toMatch(/^asset_id: /);
      });
    });
  },
);
