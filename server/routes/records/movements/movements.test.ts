import { describe, expect, it } from "vitest";
import { recordSuite } from "../../../testing/fixtures/record-suite.ts";

const valid = async (_t: unknown, projectId: string) => ({
  project_id: projectId,
  movement_type: "production",
  volume_bbls: 1250.5,
  timestamp: "2025-06-01T05:00:00-05:00",
  notes: "Tank 3 to LACT unit",
});

recordSuite(
  {
    path: "/api/movements",
    entity: "movement",
    instant: "timestamp",
    instants: ["timestamp"],
    valid,
    invalid: [
      ["project_id", undefined],
      ["project_id", "not-a-uuid"],
      ["movement_type", undefined],
      ["movement_type", "spill"],
      ["volume_bbls", undefined],
      ["volume_bbls", -0.01],
      ["volume_bbls", "1250"],
      ["timestamp", undefined],
      ["timestamp", "2025-06-01"],
      ["timestamp", "2025-06-01T05:00:00"],
      ["timestamp", "2025-02-30T05:00:00Z"],
      ["notes", 42],
      ["notes", "x".repeat(2001)],
      ["notes", "bell\u0007"],
      ["supersedes", "A-1"],
      ["correction_reason", 7],
    ],
  },
  (s) => {
    describe("/api/movements: specifics", () => {
      it("accepts every movement type and a zero volume; notes are optional", async () => {
        for (const movement_type of ["production", "transfer", "injection", "flare", "loss"]) {
          const res = await s().post({
            ...(await valid(null, s().project)),
            movement_type,
            notes: undefined,
          });
          expect(res.status, movement_type).toBe(201);
          expect(res.body).toMatchObject({ movement_type, notes: null });
        }
        const zero = await s().post({ ...(await valid(null, s().project)), volume_bbls: 0 });
        expect(zero.body.volume_bbls).toBe(0);
      });
    });
  },
);
