import { describe, expect, it } from "vitest";
import type { Alarm } from "../api/types.ts";
import { assetState } from "./asset-state.ts";
import { OverviewModel } from "./overview-model.ts";
import type { DashboardOverview } from "./overview-types.ts";
import { sparkPath } from "./sparkline.ts";

const T0 = Date.parse("2025-03-11T09:00:00Z");
const MIN = 60_000;
const BUCKET = 5 * MIN;

const alarm = (over: Partial<Alarm>): Alarm => ({
  id: "a1",
  project_id: "p1",
  asset_id: "w1",
  variable: "pressure",
  value: 1650,
  alarm_type: "high",
  severity: "warning",
  message: "pressure high",
  acknowledged: false,
  active: true,
  timestamp: new Date(T0).toISOString(),
  acknowledged_at: null,
  ...over,
});

/** Four buckets, 08:45 to 09:05; the last (09:00) is filling. */
function overview(alarms: Alarm[] = []): DashboardOverview {
  return {
    as_of: new Date(T0 + MIN).toISOString(),
    sparkline: {
      from: new Date(T0 - 3 * BUCKET).toISOString(),
      to: new Date(T0 + BUCKET).toISOString(),
      bucket_seconds: 300,
    },
    projects: [
      {
        project_id: "p1",
        name: "A",
        location: null,
        timezone: "America/Bogota",
        agent: { status: "online", last_seen: new Date(T0).toISOString(), reasons: [] },
        production: {
          unit: "bbl",
          today: { from: "", to: "", volume_bbls: 10, movements: 1 },
          yesterday: { from: "", to: "", volume_bbls: 8, movements: 1 },
        },
        completeness: { from: "", to: "", samples_received: 1, samples_expected: 2, ratio: 0.5 },
        alarms,
        assets: [
          {
            asset_id: "w1",
            name: "Well",
            asset_type: "well",
            variable_count: 9,
            poll_interval_ms: 1000,
            last_reading_at: new Date(T0).toISOString(),
            key_variables: [
              {
                variable: "flow",
                unit: "bbl/d",
                value: 100,
                timestamp: new Date(T0).toISOString(),
                spark: [90, null, 110, 100],
              },
            ],
          },
        ],
      },
    ],
  };
}

const telemetry = (ts: number, readings: { variable: string; value: number }[], asset = "w1") =>
  ({
    type: "telemetry",
    project_id: "p1",
    asset_id: asset,
    timestamp: new Date(ts).toISOString(),
    readings,
  }) as const;

describe("sparkPath", () => {
  it("scales between the lowest and highest point, breaks at gaps, and dots a lone point", () => {
    expect(sparkPath([0, 10, null, 5])).toBe("M0 220L333 20M1000 120l0 0");
    expect(sparkPath([7, 7])).toBe("M0 120L1000 120");
    expect(sparkPath([3])).toBe("M500 120l0 0");
    expect(sparkPath([null, null])).toBe("");
    expect(sparkPath([])).toBe("");
  });
});

describe("assetState", () => {
  const asset = { id: "w1", pollMs: 1000, lastTs: T0 };
  it("is in alarm only while one of its alarms is active", () => {
    expect(assetState(asset, [{ asset_id: "w1", active: true }], T0)).toBe("alarm");
    expect(assetState(asset, [{ asset_id: "w1", active: false }], T0)).toBe("reading");
    expect(assetState(asset, [{ asset_id: "w2", active: true }], T0)).toBe("reading");
  });
  it("judges its newest reading as the live table does: three polls, at least a minute; 15 min unpolled", () => {
    expect(assetState(asset, [], T0 + MIN)).toBe("reading");
    expect(assetState(asset, [], T0 + MIN + 1)).toBe("stale");
    expect(assetState({ ...asset, pollMs: 60_000 }, [], T0 + 3 * MIN + 1)).toBe("stale");
    expect(assetState({ ...asset, pollMs: null }, [], T0 + 15 * MIN)).toBe("reading");
    expect(assetState({ ...asset, pollMs: null }, [], T0 + 15 * MIN + 1)).toBe("stale");
    expect(assetState({ ...asset, lastTs: null }, [], T0)).toBe("no_data");
  });
});

describe("OverviewModel", () => {
  it("takes a live reading: value, the asset's newest reading, and its bucket's point", () => {
    const m = new OverviewModel(overview());
    const key = m.projects[0]?.assets[0]?.keys[0];
    expect(m.apply(telemetry(T0 + 2 * MIN, [{ variable: "flow", value: 130 }]))).toBe(true);
    expect(key).toMatchObject({ value: 130, ts: T0 + 2 * MIN });
    // The server's 100 for the bucket counts as one reading: (100 + 130) / 2.
    expect(key?.spark).toEqual([90, null, 110, 115]);
    m.apply(telemetry(T0 + 3 * MIN, [{ variable: "flow", value: 145 }]));
    expect(key?.spark.at(-1)).toBe(125);
    expect(m.projects[0]?.assets[0]?.lastTs).toBe(T0 + 3 * MIN);
  });

  it("ignores an older reading's value, and readings of variables or assets it does not show", () => {
    const m = new OverviewModel(overview());
    const key = m.projects[0]?.assets[0]?.keys[0];
    m.apply(telemetry(T0 - MIN, [{ variable: "flow", value: 1 }]));
    expect(key?.value).toBe(100);
    expect(m.apply(telemetry(T0 + MIN, [{ variable: "other", value: 1 }], "nope"))).toBe(false);
    // Not a key variable, but the asset did report.
    expect(m.apply(telemetry(T0 + MIN, [{ variable: "other", value: 1 }]))).toBe(true);
    expect(key?.value).toBe(100);
  });

  it("moves the sparklines' window with the clock", () => {
    const m = new OverviewModel(overview());
    expect(m.advance(T0 + BUCKET - 1)).toBe(false);
    expect(m.advance(T0 + 2 * BUCKET)).toBe(true);
    expect(m.projects[0]?.assets[0]?.keys[0]?.spark).toEqual([110, 100, null, null]);
    expect(m.sparkStart).toBe(T0 - BUCKET);
  });

  it("keeps alarms most severe then newest first, and drops one returned and acknowledged", () => {
    const m = new OverviewModel(overview([alarm({ id: "w-old" })]));
    const ids = () => m.projects[0]?.alarms.map((a) => a.id);
    m.apply({
      type: "alarm",
      event: "raised",
      alarm: alarm({ id: "w-new", timestamp: new Date(T0 + MIN).toISOString() }),
    });
    m.apply({ type: "alarm", event: "raised", alarm: alarm({ id: "c", severity: "critical" }) });
    expect(ids()).toEqual(["c", "w-new", "w-old"]);
    m.setAlarm(alarm({ id: "c", severity: "critical", acknowledged: true }));
    expect(ids()).toEqual(["c", "w-new", "w-old"]);
    m.apply({
      type: "alarm",
      event: "cleared",
      alarm: alarm({ id: "c", severity: "critical", acknowledged: true, active: false }),
    });
    expect(ids()).toEqual(["w-new", "w-old"]);
    expect(
      m.apply({ type: "alarm", event: "raised", alarm: alarm({ id: "x", project_id: "elsewhere" }) }),
    ).toBe(false);
  });
});
