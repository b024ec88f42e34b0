import type { Statement } from "better-sqlite3";
import { and, count, desc, eq, exists, gte, inArray, isNotNull, lt, sql } from "drizzle-orm";
import {
  ROLLUP_BUCKET_MS,
  type SeriesReading,
  type SeriesRollups,
  type TelemetryStore,
} from "../ports/telemetry-store.ts";
import { assets, devices, telemetryRollup5m, telemetrySeries } from "./schema/index.ts";
import type { SqliteSession } from "./session.ts";

/**
 * What brings rollups up to date: the telemetry service that writes this connection
 * (services/telemetry/service.ts), attached by the server that starts it.
 */
export type RollupSettler = {
  readonly started: boolean;
  /** Rolls up, now, whatever is pending for these series. */
  rollUp(seriesIds: readonly number[]): void;
};

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

/** The read side other aggregates use; the telemetry service's own writer and readers stay where they are. */
export class SqliteTelemetryStore implements TelemetryStore {
  readonly #s: SqliteSession;
  #settler: RollupSettler | undefined;
  #statements: { series: Statement; totals: Statement; holes: Statement } | undefined;

  constructor(session: SqliteSession) {
    this.#s = session;
  }

  /** settleRollups rolls up through `settler` from now on (the server attaches its telemetry service). */
  rollUpWith(settler: RollupSettler): void {
    this.#settler = settler;
  }

  settleRollups(projectId: string) {
    return this.#s.gate.run(() => {
      const settler = this.#settler;
      if (!settler?.started) return; // nothing is pending without a running writer
      const ids = this.#prepared().series.all(projectId) as [number, ...unknown[]][];
      settler.rollUp(ids.map(([id]) => id));
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
