import { and, asc, count, desc, eq, exists, gte, inArray, isNotNull, lt, type SQL, sql } from "drizzle-orm";
import {
  ROLLUP_BUCKET_MS,
  type SeriesReading,
  type SeriesRollups,
  type TelemetryStore,
} from "../ports/telemetry-store.ts";
import { CompensatedSum } from "./compensated-sum.ts";
import { assets, devices, telemetryRollup5m, telemetrySeries } from "./schema/index.ts";
import type { PgSession } from "./session.ts";

/** What brings rollups up to date: the telemetry writer of this process, once one is attached. */
export type RollupSettler = {
  readonly started: boolean;
  /** Rolls up, now, whatever is pending for these series. */
  rollUp(seriesIds: readonly number[]): void;
};

/** Where the store's ports find the settler (attached after they are made, shared by all). */
export type SettlerSlot = { settler?: RollupSettler };

/** A rollup bucket row as the driver hands it: bigint columns as text, doubles as numbers. */
type BucketRow = { series_id: string; bucket: string; count: string; sum: number; min: number; max: number };

/**
 * The read side other aggregates use: series' newest readings and 5-minute rollups. None of it
 * reads telemetry_raw, so the day partitions are never scanned.
 */
export class PostgresTelemetryStore implements TelemetryStore {
  readonly #s: PgSession;
  readonly #slot: SettlerSlot;

  constructor(session: PgSession, slot: SettlerSlot = {}) {
    this.#s = session;
    this.#slot = slot;
  }

  /** settleRollups rolls up through `settler` from now on (the server attaches its telemetry writer). */
  rollUpWith(settler: RollupSettler): void {
    this.#slot.settler = settler;
  }

  async settleRollups(projectId: string) {
    const settler = this.#slot.settler;
    if (!settler?.started) return; // nothing is pending without a running writer
    const rows = await this.#s
      .executor()
      .select({ id: telemetrySeries.id })
      .from(telemetrySeries)
      .where(eq(telemetrySeries.projectId, projectId));
    settler.rollUp(rows.map((r) => r.id));
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
