import { describe, expect, it } from "vitest";
import { formValues, type RecordRow, recordBody, recordInstant } from "./record-body.ts";
import { RECORD_TYPES, recordType } from "./record-types.ts";

const project = "7c3c2a4e-2f0b-4d7e-9a51-3f7e0b1c2d3e";

describe("record forms and the API's bodies", () => {
  it("cover the five record types of the spec, each with its required fields", () => {
    const required = Object.fromEntries(
      RECORD_TYPES.map((t) => [t.path, t.fields.filter((f) => f.required).map((f) => f.name)]),
    );
    expect(required).toEqual({
      "/api/movements": ["timestamp", "movement_type", "volume_bbls"],
      "/api/downtime": ["started_at", "reason"],
      "/api/well-tests": ["test_date", "asset_id"],
      "/api/lab-results": ["sample_date", "api_gravity"],
      "/api/meters/readings": ["read_at", "meter_id", "reading_value"],
    });
    expect(recordType("lab_results").path).toBe("/api/lab-results");
    expect(recordType("nonsense").id).toBe("movements");
  });

  it("send numbers as numbers and Bogotá wall-clock times as UTC, leaving empty fields out", () => {
    const body = recordBody(
      recordType("movements"),
      new Map([
        ["timestamp", "2025-06-01T05:00"],
        ["movement_type", "production"],
        ["volume_bbls", " 1250.5 "],
        ["notes", ""],
      ]),
      "America/Bogota",
      { projectId: project },
    );
    expect(body).toEqual({
      project_id: project,
      timestamp: "2025-06-01T10:00:00.000Z",
      movement_type: "production",
      volume_bbls: 1250.5,
    });
  });

  it("pass what cannot be converted as typed, for the API to name", () => {
    const body = recordBody(
      recordType("lab_results"),
      new Map([
        ["sample_date", "yesterday"],
        ["api_gravity", "18,4"],
      ]),
      "UTC",
      { projectId: project },
    );
    expect(body).toEqual({ project_id: project, sample_date: "yesterday", api_gravity: "18,4" });
  });

  it("make a correction: the record it supersedes and the reason", () => {
    const type = recordType("downtime");
    const original: RecordRow = {
      id: "a1b2c3d4-0000-4000-8000-000000000001",
      project_id: project,
      supersedes: null,
      correction_reason: null,
      superseded_by: null,
      created_by: null,
      created_at: "2025-06-01T14:00:00.000Z",
      reason: "ESP trip",
      started_at: "2025-06-01T13:15:00.000Z",
      ended_at: null,
    };
    const values = formValues(type, original, "America/Bogota");
    expect([...values]).toEqual([
      ["started_at", "2025-06-01T08:15"],
      ["ended_at", ""],
      ["reason", "ESP trip"],
    ]);
    values.set("ended_at", "2025-06-01T09:45");
    expect(
      recordBody(type, values, "America/Bogota", {
        projectId: project,
        supersedes: original.id,
        reason: "End time was missing",
      }),
    ).toEqual({
      project_id: project,
      started_at: "2025-06-01T13:15:00.000Z",
      ended_at: "2025-06-01T14:45:00.000Z",
      reason: "ESP trip",
      supersedes: original.id,
      correction_reason: "End time was missing",
    });
    expect(recordInstant(type, original)).toBe(Date.parse("2025-06-01T13:15:00.000Z"));
  });
});
