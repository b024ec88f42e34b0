import { and, asc, count, desc, eq, exists, gte, inArray, isNotNull, lt, type SQL, sql } from "drizzle-orm";
import type { SeriesReading, TelemetryStore } from "../ports/telemetry-store.ts";
import { assets, devices, telemetryRollup5m, telemetrySeries } from "./schema/index.ts";
import type { PgSession } from "./session.ts";

/**
 * The read side other aggregates use: series' newest readings and 5-minute rollups. None of it
 * reads telemetry_raw, so the day partitions are never scanned.
 */
export class PostgresTelemetryStore implements TelemetryStore {
  readonly #s: PgSession;

  constructor(session: PgSession) {
    this.#s = session;
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
