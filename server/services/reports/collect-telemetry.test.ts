import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type DatabaseHandle, openDatabase } from "../../store/sqlite/client.ts";
import { assets, devices, projects, variables } from "../../store/sqlite/schema/index.ts";
import { SqliteStore } from "../../store/sqlite/sqlite-store.ts";
import { BUCKET_MS, collectTelemetry } from "./collect-telemetry.ts";
import { productionDay } from "./production-day.ts";

const day = productionDay("2025-03-10", "America/Bogota");
const S = day.startMs;
const now = new Date(S);

describe("collectTelemetry: completeness and gaps from the rollups", () => {
  let h: DatabaseHandle;
  let projectId: string;
  let assetId: string;

  function device(enabled = true): string {
    const id = randomUUID();
    h.db
      .insert(devices)
      .values({ id, assetId, name: id, protocol: "modbus_tcp", enabled, createdAt: now, updatedAt: now })
      .run();
    return id;
  }

  function variable(deviceId: string, alias: string, pollIntervalMs: number, enabled = true): void {
    h.db
      .insert(variables)
      .values({
        id: randomUUID(),
        deviceId,
        alias,
        dataType: "float",
        pollIntervalMs,
        enabled,
        createdAt: now,
        updatedAt: now,
      })
      .run();
  }

  function series(variableName: string, buckets: number[]): void {
    const id = Number(
      h.sqlite
        .prepare("INSERT INTO telemetry_series (project_id, asset_id, variable) VALUES (?, ?, ?)")
        .run(projectId, assetId, variableName).lastInsertRowid,
    );
    const insert = h.sqlite.prepare(
      "INSERT INTO telemetry_rollup_5m (series_id, bucket, count, sum, min, max) VALUES (?, ?, 1, 1, 1, 1)",
    );
    for (const b of buckets) insert.run(id, b);
  }

  const collect = () => {
    const assetRows = h.db.select().from(assets).all();
    return collectTelemetry(new SqliteStore(h), projectId, day, assetRows);
  };

  beforeEach(() => {
    h = openDatabase(":memory:");
    projectId = randomUUID();
    assetId = randomUUID();
    h.db
      .insert(projects)
      .values({ id: projectId, name: "p", slug: `p-${projectId}`, createdAt: now, updatedAt: now })
      .run();
    h.db
      .insert(assets)
      .values({ id: assetId, projectId, name: "w", assetType: "well", createdAt: now, updatedAt: now })
      .run();
  });
  afterEach(() => h.close());

  it("a 15-minute poll leaves two empty buckets by design; three are a gap", async () => {
    variable(device(), "level", 15 * 60_000);
    // Samples every 15 minutes all day, except one missed at 06:00 local (a 25-minute hole).
    const buckets: number[] = [];
    for (let b = S; b < day.endMs; b += 3 * BUCKET_MS) if (b !== S + 6 * 3_600_000) buckets.push(b);
    series("level", buckets);
    const { telemetry, dataQuality } = await collect();
    expect(telemetry.assets[0]?.variables[0]).toMatchObject({
      count: 95,
      poll_interval_ms: 900_000,
      expected_samples: 96,
      completeness_pct: 98.96,
    });
    expect(dataQuality.gaps).toEqual([
      expect.objectContaining({
        start: new Date(S + 6 * 3_600_000 - 2 * BUCKET_MS).toISOString(),
        end: new Date(S + 6 * 3_600_000 + 3 * BUCKET_MS).toISOString(),
        missing_buckets: 5,
      }),
    ]);
    // The last sample is at 23:45: the two empty buckets after it are no gap either.
  });

  it("missing data at either end of the day is a gap for a polled variable", async () => {
    variable(device(), "p", 1_000);
    const buckets: number[] = [];
    for (let b = S + 2 * BUCKET_MS; b < day.endMs - BUCKET_MS; b += BUCKET_MS) buckets.push(b);
    series("p", buckets);
    const { dataQuality } = await collect();
    expect(dataQuality.gaps.map((g) => [g.start, g.end, g.missing_buckets])).toEqual([
      [new Date(S).toISOString(), new Date(S + 2 * BUCKET_MS).toISOString(), 2],
      [new Date(day.endMs - BUCKET_MS).toISOString(), new Date(day.endMs).toISOString(), 1],
    ]);
  });

  it("a polled variable with no data at all is one whole-day gap; a disabled one expects nothing", async () => {
    variable(device(), "silent", 10_000);
    variable(device(false), "off_device", 10_000);
    variable(device(), "off_variable", 10_000, false);
    const { telemetry, dataQuality } = await collect();
    expect(telemetry.assets[0]?.variables.map((v) => [v.variable, v.expected_samples])).toEqual([
      ["off_device", null],
      ["off_variable", null],
      ["silent", 8640],
    ]);
    expect(dataQuality.gaps).toEqual([
      expect.objectContaining({ variable: "silent", missing_buckets: 288, minutes: 1440 }),
    ]);
    expect(telemetry.samples_expected).toBe(8640);
  });

  it("the same alias on two devices of the asset: the shortest enabled interval applies", async () => {
    variable(device(), "q", 60_000);
    variable(device(), "q", 5_000);
    variable(device(false), "q", 100);
    const { telemetry } = await collect();
    expect(telemetry.assets[0]?.variables).toHaveLength(1);
    expect(telemetry.assets[0]?.variables[0]).toMatchObject({
      poll_interval_ms: 5_000,
      expected_samples: 17_280,
    });
  });
});
