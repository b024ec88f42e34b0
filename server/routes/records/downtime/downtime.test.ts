import { describe, expect, it } from "vitest";
import { recordSuite } from "../../../testing/fixtures/record-suite.ts";

const valid = async (_t: unknown, projectId: string) => ({
  project_id: projectId,
  reason: "ESP trip on high motor temperature",
  started_at: "2025-06-01T08:15:00-05:00",
});

recordSuite(
  {
    path: "/api/downtime",
    entity: "downtime",
    instant: "started_at",
    instants: ["started_at", "ended_at"],
    valid,
    invalid: [
      ["project_id", "123"],
      ["reason", undefined],
      ["reason", ""],
      ["reason", "   "],
      ["reason", "x".repeat(501)],
      ["started_at", undefined],
      ["started_at", "08:15"],
      ["ended_at", "tomorrow"],
      // Ends before it starts (started_at is 13:15Z).
      ["ended_at", "2025-06-01T13:14:59Z"],
    ],
  },
  (s) => {
    describe("/api/downtime: specifics", () => {
      it("an open downtime is closed by a correction carrying ended_at", async () => {
        const open = await s().post(await valid(null, s().project));
        expect(open.status).toBe(201);
        expect(open.body.ended_at).toBeNull();
        const closed = await s().post({
          ...(await valid(null, s().project)),
          ended_at: "2025-06-01T10:45:00-05:00",
          supersedes: open.body.id,
          correction_reason: "pump restarted",
        });
        expect(closed.status).toBe(201);
        expect(closed.body).toMatchObject({
          started_at: "2025-06-01T13:15:00.000Z",
          ended_at: "2025-06-01T15:45:00.000Z",
          supersedes: open.body.id,
        });
      });

      it("ended_at may equal started_at, and null means still open", async () => {
        const same = await s().post({
          ...(await valid(null, s().project)),
          ended_at: "2025-06-01T13:15:00Z",
        });
        expect(same.status).toBe(201);
        const explicitNull = await s().post({ ...(await valid(null, s().project)), ended_at: null });
        expect(explicitNull.status).toBe(201);
        expect(explicitNull.body.ended_at).toBeNull();
      });
    });
  },
);
