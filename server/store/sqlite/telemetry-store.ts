import type { Statement } from "better-sqlite3";
import { and, count, desc, eq, exists, gte, inArray, isNotNull, lt, sql } from "drizzle-orm";
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
  type WrittenBatch,
} from "../ports/telemetry-store.ts";
import type { StorePorts } from "../store.ts";
import { assets, devices, telemetryRollup5m, telemetrySeries } from "./schema/index.ts";
import type { SqliteSession } from "./session.ts";
import { HistoryReads } from "./telemetry/history-reads.ts";
import { TelemetryLookups } from "./telemetry/lookups.ts";
import type { PackProgress } from "./telemetry/packer.ts";
import { SqliteTelemetryWriter, type SqliteWriterOptions } from "./telemetry/telemetry-writer.ts";

/*
 * The report's rollup queries, in SQL: drizzle does not express the window function, and the rows
 * are read as arrays (`.raw()`), no per-row objects, over a day's ~300k buckets of a project.
 * Every figure comes from the rollups, never from raw rows (DESIGN.md, Storage).
 */
const seriesSql =
  "SELECT id, asset_id, variable, unit FROM telemetry_series WHERE project_id = ? ORDER BY id";

const totalsSql = `
  SELECT r.series_id, SUM(r.count), SUM(r.sum), MIN(r.min), MAX(r.max), MIN(r.bucket), MAX(r.bucket)
  FROM telemetry_series s
  JOIN telemetry_rollup_5m r ON r.series_id = s.id AND r.bucket >= ? AND r.bucket < ?
  WHERE s.project_id = ?
  GROUP BY r.series_id`;

/** Pairs of consecutive buckets of a series with at least one empty bucket between them. */
const holesSql = `
  SELECT series_id, prev, bucket FROM (
    SELECT r.series_id AS series_id, r.bucket AS bucket,
           LAG(r.bucket) OVER (PARTITION BY r.series_id ORDER BY r.bucket) AS prev
    FROM telemetry_series s
    JOIN telemetry_rollup_5m r ON r.series_id = s.id AND r.bucket >= ? AND r.bucket < ?
    WHERE s.project_id = ?
  ) WHERE bucket - prev > ${ROLLUP_BUCKET_MS}
  ORDER BY series_id, bucket`;

/**
 * Telemetry on the server's SQLite connection: the writer (store/sqlite/telemetry/: group commit,
 * inbox, roll-ups, packing, retention, the WAL checkpointer) runs between start() and stop() on
 * the store the server opens; every store (an HTTP worker thread's too) serves the reads.
 */
export class SqliteTelemetryStore implements TelemetryStore {
  readonly #s: SqliteSession;
  readonly #writer: SqliteTelemetryWriter;
  readonly #lookups: TelemetryLookups;
  readonly #reads: HistoryReads;
  #statements: { series: Statement; totals: Statement; holes: Statement } | undefined;
  #projectOf: Statement<[string], string> | undefined;
  #lastReports: Statement<[], [string, number]> | undefined;

  /** `transaction`: the store's own (SqliteStore.transaction), which the group commit runs through. */
  constructor(session: SqliteSession, transaction: <T>(work: (tx: StorePorts) => Promise<T>) => Promise<T>) {
    this.#s = session;
    this.#lookups = new TelemetryLookups(session.sqlite);
    this.#writer = new SqliteTelemetryWriter(session.sqlite, this.#lookups, transaction);
    this.#reads = new HistoryReads(session.sqlite, session.gate, this.#writer.settleInbox);
  }

  get started(): boolean {
    return this.#writer.started;
  }

  start(options: TelemetryWriterOptions & Partial<SqliteWriterOptions>, host: TelemetryWriterHost) {
    return this.#s.gate.run(() => this.#writer.start(options, host));
  }

  stop(): Promise<void> {
    return this.#writer.stop();
  }

  write(batch: TelemetryBatch, period: string, tx?: BatchTransaction): Promise<WrittenBatch> {
    return attempt(() => this.#writer.write(batch, period, tx));
  }

  projectOfAsset(assetId: string) {
    return this.#s.gate.run(() => {
      // The running writer's lookups are kept true by triggers on this connection; without them
      // (an HTTP worker thread's store), nothing is cached.
      if (this.#lookups.installed) return this.#lookups.projectOf(assetId);
      this.#projectOf ??= this.#s.sqlite
        .prepare<[string], string>("SELECT project_id FROM assets WHERE id = ?")
        .pluck();
      return this.#projectOf.get(assetId);
    });
  }

  assetSeries(assetId: string, variables?: readonly string[]): Promise<SeriesRef[]> {
    return this.#reads.assetSeries(assetId, variables);
  }

  pointReader(cachedBlocks: number): PointReader {
    return this.#reads.pointReader(cachedBlocks);
  }

  windows(seriesId: number, width: WindowWidth, fromBucket: number, toBucket: number): Promise<WindowRow[]> {
    return this.#reads.windows(seriesId, width, fromBucket, toBucket);
  }

  rollUp(seriesIds: readonly number[]) {
    return this.#s.gate.run(() => this.#writer.rollUp(seriesIds));
  }

  rollUpAll() {
    return this.#s.gate.run(() => this.#writer.rollUpAll());
  }

  lastReports() {
    return this.#s.gate.run(() => {
      this.#lastReports ??= this.#s.sqlite
        .prepare<[], [string, number]>(
          "SELECT asset_id, max(last_ts) FROM telemetry_series WHERE last_ts IS NOT NULL GROUP BY asset_id",
        )
        .raw();
      return this.#lastReports.all().map(([assetId, lastTs]) => ({ assetId, lastTs: Number(lastTs) }));
    });
  }

  deleteRawBefore(cutoffMs: number): Promise<number> {
    return attempt(() => this.#writer.deleteRawBefore(cutoffMs));
  }

  pack(cutoffMs: number, progress?: (p: PackProgress) => void): Promise<PackTotals> {
    return attempt(() => this.#writer.pack(cutoffMs, progress));
  }

  settleRollups(projectId: string) {
    return this.#s.gate.run(() => {
      if (!this.#writer.started) return; // nothing is pending without a running writer
      const ids = this.#prepared().series.all(projectId) as [number, ...unknown[]][];
      this.#writer.rollUp(ids.map(([id]) => id));
    });
  }

  seriesRollups(projectId: string, fromBucket: number, toBucket: number) {
    return this.#s.gate.run((): SeriesRollups[] => {
      const statements = this.#prepared();
      // Column types as stated by each SELECT above (better-sqlite3 types rows as unknown).
      const series = statements.series.all(projectId) as [number, string, string, string | null][];
      const totals = statements.totals.all(fromBucket, toBucket, projectId) as [
        number,
        number,
        number,
        number,
        number,
        number,
        number,
      ][];
      const holes = statements.holes.all(fromBucket, toBucket, projectId) as [number, number, number][];
      const out = new Map<number, SeriesRollups>();
      for (const [seriesId, assetId, variable, unit] of series) {
        out.set(seriesId, { seriesId, assetId, variable, unit, totals: null, holes: [] });
      }
      for (const [id, count, sum, min, max, firstBucket, lastBucket] of totals) {
        const s = out.get(id);
        if (s) s.totals = { count, sum, min, max, firstBucket, lastBucket };
      }
      for (const [id, prev, bucket] of holes) out.get(id)?.holes.push([prev + ROLLUP_BUCKET_MS, bucket]);
      return [...out.values()];
    });
  }

  #prepared() {
    if (!this.#statements) {
      const { sqlite } = this.#s;
      this.#statements = {
        series: sqlite.prepare(seriesSql).raw(),
        totals: sqlite.prepare(totalsSql).raw(),
        holes: sqlite.prepare(holesSql).raw(),
      };
    }
    return this.#statements;
  }

  activeAssetCount(sinceMs: number, projectIds?: readonly string[]) {
    return this.#s.gate.run(() => {
      if (projectIds?.length === 0) return 0;
      const scope = projectIds && [...projectIds];
      const { db } = this.#s;
      const row = db
        .select({ n: count() })
        .from(assets)
        .where(
          and(
            scope && inArray(assets.projectId, scope),
            inArray(
              assets.id,
              db
                .select({ id: telemetrySeries.assetId })
                .from(telemetrySeries)
                .where(
                  and(
                    scope && inArray(telemetrySeries.projectId, scope),
                    gte(telemetrySeries.lastTs, sinceMs),
                  ),
                ),
            ),
          ),
        )
        .get();
      return row?.n ?? 0;
    });
  }

  recentReadings(limit: number, projectIds?: readonly string[]) {
    return this.#s.gate.run((): SeriesReading[] => {
      if (projectIds?.length === 0) return [];
      const scope = projectIds && inArray(telemetrySeries.projectId, [...projectIds]);
      const rows = this.#s.db
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
        .orderBy(desc(telemetrySeries.lastTs), telemetrySeries.id)
        .limit(limit)
        .all();
      // Both are NOT NULL here (the WHERE above); drizzle's types cannot know it.
      return rows.map((r) => ({ ...r, value: r.value ?? 0, ts: r.ts ?? 0 }));
    });
  }

  devicesReportingSince(projectId: string, sinceMs: number) {
    return this.#s.gate.run(() =>
      this.#enabledDevicesWhere(
        projectId,
        this.#s.db
          .select({ one: sql`1` })
          .from(telemetrySeries)
          .where(and(eq(telemetrySeries.assetId, assets.id), gte(telemetrySeries.lastTs, sinceMs))),
      ),
    );
  }

  devicesReportedIn(projectId: string, fromMs: number, toMs: number) {
    return this.#s.gate.run(() =>
      this.#enabledDevicesWhere(
        projectId,
        this.#s.db
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
      ),
    );
  }

  /** Enabled devices of the project whose asset (correlated as `assets`) satisfies `reported`. */
  #enabledDevicesWhere(projectId: string, reported: Parameters<typeof exists>[0]): number {
    const row = this.#s.db
      .select({ n: count() })
      .from(devices)
      .innerJoin(assets, eq(assets.id, devices.assetId))
      .where(and(eq(assets.projectId, projectId), eq(devices.enabled, true), exists(reported)))
      .get();
    return row?.n ?? 0;
  }
}

/** The promise `start` returns, or its synchronous throw as a rejection (the writer's own passes run outside the gate). */
function attempt<T>(start: () => Promise<T>): Promise<T> {
  try {
    return start();
  } catch (err) {
    return Promise.reject(err);
  }
}
