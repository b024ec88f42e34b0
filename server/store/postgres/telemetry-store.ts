import { and, asc, count, desc, eq, exists, gte, inArray, isNotNull, lt, type SQL, sql } from "drizzle-orm";
import type { Pool } from "pg";
import type { TelemetryBatch } from "../../../shared/telemetry/batch.ts";
import {
  type BatchTransaction,
  type PackTotals,
  type PointReader,
  ROLLUP_BUCKET_MS,
  type SeriesReading,
  type SeriesRef,
  type SeriesRollups,
  type TelemetryStore,
  type TelemetryWriterHost,
  type TelemetryWriterOptions,
  type WindowRow,
  type WindowWidth,
} from "../ports/telemetry-store.ts";
import { BlockCache } from "../telemetry/blocks.ts";
import { CompensatedSum } from "./compensated-sum.ts";
import { assets, devices, telemetryRollup5m, telemetrySeries } from "./schema/index.ts";
import type { PgSession } from "./session.ts";
import { PgPoints } from "./telemetry/points.ts";
import { type Query, sessionQuery } from "./telemetry/query.ts";
import { dailyWindows, rollupWindows } from "./telemetry/windows.ts";
import type { PgTelemetryWriter } from "./telemetry/writer.ts";

/** What every telemetry port of a store shares (those of its transactions too): the pool and the writer. */
export type TelemetryEngine = {
  readonly pool: Pool;
  readonly writer: PgTelemetryWriter;
};

/** A rollup bucket row as the driver hands it: bigint columns as text, doubles as numbers. */
type BucketRow = { series_id: string; bucket: string; count: string; sum: number; min: number; max: number };

/**
 * Telemetry on PostgreSQL. The writer (write, the lifecycle, retention, packing) lives in
 * telemetry/ and is shared by the store's ports; reads run where the session runs them.
 */
export class PostgresTelemetryStore implements TelemetryStore {
  readonly #s: PgSession;
  readonly #engine: TelemetryEngine;
  readonly #query: Query;

  constructor(session: PgSession, engine: TelemetryEngine) {
    this.#s = session;
    this.#engine = engine;
    this.#query = sessionQuery(session, engine.pool);
  }

  get started(): boolean {
    return this.#engine.writer.started;
  }

  start(options: TelemetryWriterOptions, host: TelemetryWriterHost): Promise<void> {
    return this.#engine.writer.start(options, host);
  }

  stop(): Promise<void> {
    return this.#engine.writer.stop();
  }

  write(batch: TelemetryBatch, period: string, tx?: BatchTransaction) {
    return this.#engine.writer.write(batch, period, tx);
  }

  rollUp(seriesIds: readonly number[]): Promise<void> {
    return this.#engine.writer.rollUp(seriesIds);
  }

  rollUpAll(): Promise<void> {
    return this.#engine.writer.rollUpAll();
  }

  deleteRawBefore(cutoffMs: number): Promise<number> {
    return this.#engine.writer.deleteRawBefore(cutoffMs);
  }

  pack(
    cutoffMs: number,
    progress?: (p: PackTotals & { seriesDone: number; seriesTotal: number }) => void,
  ): Promise<PackTotals> {
    return this.#engine.writer.pack(cutoffMs, progress);
  }

  async projectOfAsset(assetId: string): Promise<string | undefined> {
    // Inside a transaction: what it sees, not the cache (which holds committed state).
    if (!this.#s.inTransaction()) return this.#engine.writer.projectOfAsset(assetId);
    const [row] = await this.#query<[string]>("SELECT project_id FROM assets WHERE id = $1", [assetId]);
    return row?.[0];
  }

  async assetSeries(assetId: string, variables?: readonly string[]): Promise<SeriesRef[]> {
    const all = await this.#query<[number, string, string | null]>(
      "SELECT id::float8, variable, unit FROM telemetry_series WHERE asset_id = $1",
      [assetId],
    );
    const wanted = variables === undefined ? undefined : new Set(variables);
    return all
      .filter(([, variable]) => wanted === undefined || wanted.has(variable))
      .map(([id, variable, unit]) => ({ id, variable, unit }))
      .sort((a, b) => (a.variable < b.variable ? -1 : a.variable > b.variable ? 1 : 0));
  }

  pointReader(cachedBlocks: number): PointReader {
    return new PgPoints(this.#query, new BlockCache(cachedBlocks));
  }

  async windows(
    seriesId: number,
    width: WindowWidth,
    fromBucket: number,
    toBucket: number,
  ): Promise<WindowRow[]> {
    if (width === "1d") return dailyWindows(this.#query, seriesId, fromBucket, toBucket);
    const table = width === "5m" ? "telemetry_rollup_5m" : "telemetry_rollup_1h";
    return rollupWindows(this.#query, table, seriesId, fromBucket, toBucket);
  }

  async lastReports(): Promise<{ assetId: string; lastTs: number }[]> {
    const rows = await this.#query<[string, number]>(
      `SELECT asset_id, max(last_ts)::float8 FROM telemetry_series WHERE last_ts IS NOT NULL
        GROUP BY asset_id ORDER BY asset_id`,
    );
    return rows.map(([assetId, lastTs]) => ({ assetId, lastTs }));
  }

  async settleRollups(projectId: string) {
    const { writer } = this.#engine;
    if (!writer.started) return; // nothing is pending without a running writer
    const rows = await this.#s
      .executor()
      .select({ id: telemetrySeries.id })
      .from(telemetrySeries)
      .where(eq(telemetrySeries.projectId, projectId))
      .orderBy(asc(telemetrySeries.id));
    const ids = rows.map((r) => r.id);
    await writer.rollUp(ids);
  }

  async seriesRollups(projectId: string, fromBucket: number, toBucket: number) {
    const executor = this.#s.executor();
    const series = await executor
      .select({
        seriesId: telemetrySeries.id,
        assetId: telemetrySeries.assetId,
        variable: telemetrySeries.variable,
        unit: telemetrySeries.unit,
      })
      .from(telemetrySeries)
      .where(eq(telemetrySeries.projectId, projectId))
      .orderBy(asc(telemetrySeries.id));
    // Buckets in ascending order per series, totalled here: the sum as SQLite's SUM() adds (see
    // CompensatedSum), and holes found in the same pass. Read as plain rows, no drizzle mapping.
    const { rows } = await executor.execute<BucketRow>(
      sql`SELECT r.series_id, r.bucket, r.count, r.sum, r.min, r.max
            FROM telemetry_series s
            JOIN telemetry_rollup_5m r ON r.series_id = s.id AND r.bucket >= ${fromBucket} AND r.bucket < ${toBucket}
           WHERE s.project_id = ${projectId}
           ORDER BY r.series_id, r.bucket`,
    );
    const out = new Map<number, SeriesRollups>(
      series.map((s) => [s.seriesId, { ...s, totals: null, holes: [] }]),
    );
    let current: SeriesRollups | undefined;
    let sum = new CompensatedSum();
    const finish = () => {
      if (current?.totals) current.totals.sum = sum.value;
    };
    for (const row of rows) {
      const id = Number(row.series_id);
      const bucket = Number(row.bucket);
      if (current?.seriesId !== id) {
        finish();
        current = out.get(id);
        sum = new CompensatedSum();
        if (!current) continue; // a series made after the list was read
      }
      sum.add(row.sum);
      const totals = current.totals;
      if (!totals) {
        current.totals = {
          count: Number(row.count),
          sum: 0,
          min: row.min,
          max: row.max,
          firstBucket: bucket,
          lastBucket: bucket,
        };
        continue;
      }
      if (bucket - totals.lastBucket > ROLLUP_BUCKET_MS) {
        current.holes.push([totals.lastBucket + ROLLUP_BUCKET_MS, bucket]);
      }
      totals.count += Number(row.count);
      // Replaced only by a strictly lower (higher) value, as SQLite's MIN and MAX do.
      if (row.min < totals.min) totals.min = row.min;
      if (row.max > totals.max) totals.max = row.max;
      totals.lastBucket = bucket;
    }
    finish();
    return [...out.values()];
  }

  async activeAssetCount(sinceMs: number, projectIds?: readonly string[]) {
    if (projectIds?.length === 0) return 0;
    const scope = projectIds && [...projectIds];
    const executor = this.#s.executor();
    const [row] = await executor
      .select({ n: count() })
      .from(assets)
      .where(
        and(
          scope && inArray(assets.projectId, scope),
          inArray(
            assets.id,
            executor
              .select({ id: telemetrySeries.assetId })
              .from(telemetrySeries)
              .where(
                and(scope && inArray(telemetrySeries.projectId, scope), gte(telemetrySeries.lastTs, sinceMs)),
              ),
          ),
        ),
      );
    return row?.n ?? 0;
  }

  async recentReadings(limit: number, projectIds?: readonly string[]): Promise<SeriesReading[]> {
    if (projectIds?.length === 0) return [];
    const scope = projectIds && inArray(telemetrySeries.projectId, [...projectIds]);
    const rows = await this.#s
      .executor()
      .select({
        projectId: telemetrySeries.projectId,
        assetId: telemetrySeries.assetId,
        assetName: assets.name,
        variable: telemetrySeries.variable,
        unit: telemetrySeries.unit,
        value: telemetrySeries.lastValue,
        ts: telemetrySeries.lastTs,
      })
      .from(telemetrySeries)
      .innerJoin(assets, eq(assets.id, telemetrySeries.assetId))
      .where(and(scope, isNotNull(telemetrySeries.lastTs), isNotNull(telemetrySeries.lastValue)))
      .orderBy(desc(telemetrySeries.lastTs), asc(telemetrySeries.id))
      .limit(limit);
    // Both are NOT NULL here (the WHERE above); drizzle's types cannot know it.
    return rows.map((r) => ({ ...r, value: r.value ?? 0, ts: r.ts ?? 0 }));
  }

  devicesReportingSince(projectId: string, sinceMs: number) {
    return this.#enabledDevicesWhere(
      projectId,
      this.#s
        .executor()
        .select({ one: sql`1` })
        .from(telemetrySeries)
        .where(and(eq(telemetrySeries.assetId, assets.id), gte(telemetrySeries.lastTs, sinceMs))),
    );
  }

  devicesReportedIn(projectId: string, fromMs: number, toMs: number) {
    return this.#enabledDevicesWhere(
      projectId,
      this.#s
        .executor()
        .select({ one: sql`1` })
        .from(telemetrySeries)
        .innerJoin(
          telemetryRollup5m,
          and(
            eq(telemetryRollup5m.seriesId, telemetrySeries.id),
            gte(telemetryRollup5m.bucket, fromMs),
            lt(telemetryRollup5m.bucket, toMs),
          ),
        )
        .where(eq(telemetrySeries.assetId, assets.id)),
    );
  }

  /** Enabled devices of the project whose asset (correlated as `assets`) satisfies `reported`. */
  async #enabledDevicesWhere(projectId: string, reported: SQL | Parameters<typeof exists>[0]) {
    const [row] = await this.#s
      .executor()
      .select({ n: count() })
      .from(devices)
      .innerJoin(assets, eq(assets.id, devices.assetId))
      .where(and(eq(assets.projectId, projectId), eq(devices.enabled, true), exists(reported)));
    return row?.n ?? 0;
  }
}
