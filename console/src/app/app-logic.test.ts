import { describe, expect, it } from "vitest";
import { completenessSoFar } from "./completeness.ts";
import { matchPath, splitHash } from "./route-match.ts";

describe("routes in the hash", () => {
  it("match :name segments and split off the query", () => {
    expect(matchPath("/projects/:projectId/assets/:assetId", "/projects/p1/assets/a%201")).toEqual({
      projectId: "p1",
      assetId: "a 1",
    });
    expect(matchPath("/projects/:projectId", "/projects/p1/assets/a1")).toBeNull();
    expect(matchPath("/alarms", "/overview")).toBeNull();
    const { path, query } = splitHash("#/alarms?project=p1");
    expect(path).toBe("/alarms");
    expect(query.get("project")).toBe("p1");
    expect(splitHash("").path).toBe("/");
  });
});

describe("today's completeness so far", () => {
  const preview = (received: number, expected: number, asOf: string) => ({
    period_start: "2025-03-10T05:00:00.000Z",
    period_end: "2025-03-11T05:00:00.000Z",
    as_of: asOf,
    content: { telemetry: { samples_received: received, samples_expected: expected, series_count: 1 } },
  });
  it("scales the whole day's expectation to the part elapsed", () => {
    // 1 Hz, a quarter of the day gone: 21,600 expected so far.
    expect(completenessSoFar(preview(21_600, 86_400, "2025-03-10T11:00:00.000Z"))).toBe(1);
    expect(completenessSoFar(preview(10_800, 86_400, "2025-03-10T11:00:00.000Z"))).toBe(0.5);
    expect(completenessSoFar(preview(86_400, 86_400, "2025-03-12T00:00:00.000Z"))).toBe(1);
  });
  it("is null when nothing is polled or nothing is due yet", () => {
    expect(completenessSoFar(preview(0, 0, "2025-03-10T11:00:00.000Z"))).toBeNull();
    expect(completenessSoFar(preview(0, 86_400, "2025-03-10T05:00:00.000Z"))).toBeNull();
  });
});
