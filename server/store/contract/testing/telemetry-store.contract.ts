import { afterEach, beforeEach, expect, it } from "vitest";
import { ROLLUP_BUCKET_MS as B } from "../../ports/telemetry-store.ts";
import type { ContractBackend, NewSeries, StoreUnderTest } from "./backend.ts";
import { newAsset, newDevice, newProject } from "./fixtures.ts";

const MIN5 = 5 * 60_000;

/**
 * TelemetryStore's reads (server/store/ports/telemetry-store.ts) on every backend: series' newest
 * readings and 5-minute rollups, as telemetry ingest leaves them (seeded here).
 */
export function telemetryStoreContract(backend: ContractBackend): void {
  let t: StoreUnderTest;
  let p: string;
  let q: string;
  beforeEach(async () => {
    t = await backend.open();
    p = (await t.store.field.insertProject(newProject("P"))).id;
    q = (await t.store.field.insertProject(newProject("Q"))).id;
  });
  afterEach(async () => {
    await t.close();
  });

  const series = (
    id: number,
    projectId: string,
    assetId: string,
    lastTs: number | null,
    more: Partial<NewSeries> = {},
  ) => ({
    id,
    projectId,
    assetId,
    variable: `v${id}`,
    unit: id % 2 === 0 ? "bbl" : null,
    lastTs,
    lastValue: lastTs === null ? null : id + 0.25,
    ...more,
  });

  it("counts the assets of the projects asked for with a series read at or after a time", async () => {
    const [a, b, c, d] = [newAsset(p, "A"), newAsset(p, "B"), newAsset(p, "C"), newAsset(q, "D")];
    await t.seed.assets([a, b, c, d]);
    await t.seed.telemetrySeries([
      series(1, p, a.id, 1000),
      series(2, p, a.id, 2000),
      series(3, p, b.id, 999),
      series(4, p, c.id, null),
      series(5, q, d.id, 5000),
    ]);
    expect(await t.store.telemetry.activeAssetCount(1000)).toBe(2);
    expect(await t.store.telemetry.activeAssetCount(1000, [p])).toBe(1);
    expect(await t.store.telemetry.activeAssetCount(999, [p, q])).toBe(3);
    expect(await t.store.telemetry.activeAssetCount(0, [q])).toBe(1);
    expect(await t.store.telemetry.activeAssetCount(0, [])).toBe(0);
    expect(await t.store.telemetry.activeAssetCount(6000)).toBe(0);
  });

  it("lists the newest readings, newest first then by series id, with asset names; only series read", async () => {
    const [a, b] = [newAsset(p, "Well A"), newAsset(q, "Well B")];
    await t.seed.assets([a, b]);
    await t.seed.telemetrySeries([
      series(4, p, a.id, 2 ** 42),
      series(2, q, b.id, 3000),
      series(3, p, a.id, 3000),
      series(1, p, a.id, null),
      series(5, q, b.id, 1000, { lastValue: -0.5 }),
      series(6, p, a.id, 500, { lastValue: null }),
    ]);
    expect(await t.store.telemetry.recentReadings(10)).toStrictEqual([
      {
        projectId: p,
        assetId: a.id,
        assetName: "Well A",
        variable: "v4",
        unit: "bbl",
        value: 4.25,
        ts: 2 ** 42,
      },
      {
        projectId: q,
        assetId: b.id,
        assetName: "Well B",
        variable: "v2",
        unit: "bbl",
        value: 2.25,
        ts: 3000,
      },
      { projectId: p, assetId: a.id, assetName: "Well A", variable: "v3", unit: null, value: 3.25, ts: 3000 },
      { projectId: q, assetId: b.id, assetName: "Well B", variable: "v5", unit: null, value: -0.5, ts: 1000 },
    ]);
    expect((await t.store.telemetry.recentReadings(2)).map((r) => r.variable)).toEqual(["v4", "v2"]);
    expect((await t.store.telemetry.recentReadings(10, [q])).map((r) => r.variable)).toEqual(["v2", "v5"]);
    expect(await t.store.telemetry.recentReadings(10, [])).toEqual([]);
  });

  it("counts a project's enabled devices on assets read since a time, or with a rollup in a range", async () => {
    const [a, b, c, d] = [newAsset(p, "A"), newAsset(p, "B"), newAsset(p, "C"), newAsset(q, "D")];
    await t.seed.assets([a, b, c, d]);
    await t.seed.devices([
      newDevice(a.id, "a1"),
      newDevice(a.id, "a2"),
      { ...newDevice(a.id, "a3"), enabled: false },
      newDevice(b.id, "b1"),
      newDevice(c.id, "c1"),
      newDevice(d.id, "d1"),
    ]);
    await t.seed.telemetrySeries([
      series(1, p, a.id, 10 * MIN5),
      series(2, p, a.id, 20 * MIN5),
      series(3, p, b.id, 5 * MIN5),
      series(4, q, d.id, 30 * MIN5),
    ]);
    const rollup = (seriesId: number, bucket: number) => ({
      seriesId,
      bucket,
      count: 1,
      sum: 1,
      min: 1,
      max: 1,
    });
    await t.seed.rollups5m([
      rollup(1, 2 * MIN5),
      rollup(2, 3 * MIN5),
      rollup(3, 4 * MIN5),
      rollup(4, 3 * MIN5),
    ]);

    expect(await t.store.telemetry.devicesReportingSince(p, 10 * MIN5)).toBe(2);
    expect(await t.store.telemetry.devicesReportingSince(p, 5 * MIN5)).toBe(3);
    expect(await t.store.telemetry.devicesReportingSince(p, 21 * MIN5)).toBe(0);
    expect(await t.store.telemetry.devicesReportingSince(q, 0)).toBe(1);

    expect(await t.store.telemetry.devicesReportedIn(p, 0, 100 * MIN5)).toBe(3);
    expect(await t.store.telemetry.devicesReportedIn(p, 3 * MIN5, 4 * MIN5)).toBe(2);
    expect(await t.store.telemetry.devicesReportedIn(p, 4 * MIN5, 5 * MIN5)).toBe(1);
    expect(await t.store.telemetry.devicesReportedIn(p, 5 * MIN5, 100 * MIN5)).toBe(0);
    expect(await t.store.telemetry.devicesReportedIn(q, 0, 3 * MIN5)).toBe(0);
  });

  it("totals a project's series' rollups in a window, sums compensated as SQLite adds them, with the holes between buckets", async () => {
    const [a, b] = [newAsset(p, "A"), newAsset(q, "B")];
    await t.seed.assets([a, b]);
    await t.seed.telemetrySeries([
      series(7, p, a.id, null),
      series(3, p, a.id, null, { unit: "m3" }),
      series(5, p, a.id, null),
      series(4, q, b.id, null),
    ]);
    const bucket = (seriesId: number, at: number, sum: number, count = 2, min = sum, max = sum) => ({
      seriesId,
      bucket: at,
      count,
      sum,
      min,
      max,
    });
    const tenths = [0, 1, 2, 5, 6, 9, 10, 11, 12, 13].map((n, i) =>
      bucket(3, n * B, 0.1, i + 1, -i, i * 1.5),
    );
    await t.seed.rollups5m([
      ...tenths,
      bucket(3, -B, 100), // before the window
      bucket(3, 20 * B, 100), // at its end: excluded
      bucket(5, 4 * B, 1e16),
      bucket(5, 5 * B, 1),
      bucket(5, 6 * B, -1e16),
      bucket(4, 4 * B, 1),
    ]);
    const rollups = await t.store.telemetry.seriesRollups(p, 0, 20 * B);
    expect(rollups).toStrictEqual([
      {
        seriesId: 3,
        assetId: a.id,
        variable: "v3",
        unit: "m3",
        // Added in bucket order, ten times 0.1 makes 0.9999999999999999 uncompensated.
        totals: { count: 55, sum: 1, min: -9, max: 13.5, firstBucket: 0, lastBucket: 13 * B },
        holes: [
          [3 * B, 5 * B],
          [7 * B, 9 * B],
        ],
      },
      {
        seriesId: 5,
        assetId: a.id,
        variable: "v5",
        unit: null,
        // 1e16 + 1 - 1e16 is 0 uncompensated.
        totals: { count: 6, sum: 1, min: -1e16, max: 1e16, firstBucket: 4 * B, lastBucket: 6 * B },
        holes: [],
      },
      { seriesId: 7, assetId: a.id, variable: "v7", unit: null, totals: null, holes: [] },
    ]);
    expect(await t.store.telemetry.seriesRollups(p, 30 * B, 40 * B)).toMatchObject([
      { seriesId: 3, totals: null, holes: [] },
      { seriesId: 5, totals: null },
      { seriesId: 7, totals: null },
    ]);
    expect(await t.store.telemetry.seriesRollups("no-such-project", 0, 20 * B)).toEqual([]);
  });
}
