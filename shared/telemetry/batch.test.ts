import { describe, expect, it } from "vitest";
import { batchOfInstants, instantsOfBatch, pointCount, type TelemetryInstant } from "./batch.ts";

const p = "project";

describe("telemetry batch shape", () => {
  it("turns one payload into one series per reading, units kept", () => {
    const batch = batchOfInstants(
      [
        {
          projectId: p,
          assetId: "a",
          ts: 1000,
          readings: [
            { variable: "level", value: 4.25, unit: "m" },
            { variable: "temp", value: 31 },
          ],
        },
      ],
      "http",
    );
    expect(batch).toEqual({
      source: "http",
      series: [
        { projectId: p, assetId: "a", variable: "level", unit: "m", points: [[1000, 4.25]] },
        { projectId: p, assetId: "a", variable: "temp", points: [[1000, 31]] },
      ],
    });
    expect("unit" in (batch.series[1] ?? {})).toBe(false);
  });

  it("joins the readings of each asset and variable into one series, in arrival order", () => {
    const instants: TelemetryInstant[] = [
      { projectId: p, assetId: "a", ts: 3000, readings: [{ variable: "x", value: 1 }] },
      { projectId: p, assetId: "b", ts: 1000, readings: [{ variable: "x", value: 2 }] },
      { projectId: p, assetId: "a", ts: 1000, readings: [{ variable: "x", value: 3 }] },
    ];
    expect(batchOfInstants(instants, "agent").series).toEqual([
      {
        projectId: p,
        assetId: "a",
        variable: "x",
        points: [
          [3000, 1],
          [1000, 3],
        ],
      },
      { projectId: p, assetId: "b", variable: "x", points: [[1000, 2]] },
    ]);
  });

  it("starts another series when the unit changes, so each point keeps the unit it came with", () => {
    const at = (ts: number, unit?: string): TelemetryInstant => ({
      projectId: p,
      assetId: "a",
      ts,
      readings: [
        unit === undefined ? { variable: "level", value: ts } : { variable: "level", value: ts, unit },
      ],
    });
    const batch = batchOfInstants([at(1, "m"), at(2, "m"), at(3, "ft"), at(4), at(5, "m")], "http");
    expect(batch.series.map((s) => [s.unit, s.points.map(([ts]) => ts)])).toEqual([
      ["m", [1, 2]],
      ["ft", [3]],
      [undefined, [4]],
      ["m", [5]],
    ]);
    expect(pointCount(batch)).toBe(5);
  });

  it("gives back the instants of a batch: one per asset and time, readings in series order", () => {
    const instants: TelemetryInstant[] = [
      {
        projectId: p,
        assetId: "a",
        ts: 1000,
        readings: [
          { variable: "x", value: 1, unit: "psi" },
          { variable: "y", value: 2 },
        ],
      },
      { projectId: p, assetId: "a", ts: 2000, readings: [{ variable: "x", value: 3, unit: "psi" }] },
      { projectId: "other", assetId: "b", ts: 1000, readings: [{ variable: "z", value: 4 }] },
    ];
    expect(instantsOfBatch(batchOfInstants(instants, "http"))).toEqual(instants);
  });

  it("groups an agent's series (one variable, many instants) per asset and instant", () => {
    const instants = instantsOfBatch({
      source: "agent",
      series: [
        {
          projectId: p,
          assetId: "a",
          variable: "pressure",
          unit: "psi",
          points: [
            [1000, 1450],
            [2000, 1451],
          ],
        },
        { projectId: p, assetId: "a", variable: "temperature", points: [[1000, 182]] },
      ],
    });
    expect(instants).toEqual([
      {
        projectId: p,
        assetId: "a",
        ts: 1000,
        readings: [
          { variable: "pressure", value: 1450, unit: "psi" },
          { variable: "temperature", value: 182 },
        ],
      },
      {
        projectId: p,
        assetId: "a",
        ts: 2000,
        readings: [{ variable: "pressure", value: 1451, unit: "psi" }],
      },
    ]);
  });
});
