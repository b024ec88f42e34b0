import { describe, expect, it } from "vitest";
import { recordSuite } from "../../../testing/fixtures/record-suite.ts";

const valid = async (_t: unknown, projectId: string) => ({
  project_id: projectId,
  sample_date: "2025-06-01T07:30:00Z",
  api_gravity: 18.4,
  bsw_pct: 0.8,
  viscosity_cp: 420,
});

recordSuite(
  {
    path: "/api/lab-results",
    entity: "lab_result",
    instant: "sample_date",
    instants: ["sample_date"],
    valid,
    invalid: [
      ["project_id", undefined],
      ["sample_date", undefined],
      ["sample_date", "01/06/2025"],
      ["api_gravity", undefined],
      ["api_gravity", -1],
      ["api_gravity", 100.5],
      ["api_gravity", "18.4"],
      ["bsw_pct", -1],
      ["bsw_pct", 101],
      ["viscosity_cp", -0.5],
    ],
  },
  (s) => {
    describe("/api/lab-results: specifics", () => {
      it("API gravity bounds are inclusive; bsw and viscosity are optional", async () => {
        for (const api_gravity of [0, 8.5, 100]) {
          const res = await s().post({
            project_id: s().project,
            sample_date: "2025-06-01T07:30:00Z",
            api_gravity,
          });
          expect(res.status, String(api_gravity)).toBe(201);
          expect(res.body).toMatchObject({ api_gravity, bsw_pct: null, viscosity_cp: null });
        }
      });
    });
  },
);
