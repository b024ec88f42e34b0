import { and, count, desc, eq, exists, gte, inArray, isNotNull, lt, sql } from "drizzle-orm";
import type { SeriesReading, TelemetryStore } from "../ports/telemetry-store.ts";
import { assets, devices, telemetryRollup5m, telemetrySeries } from "./schema/index.ts";
import type { SqliteSession } from "./session.ts";

/** The read side other aggregates use; the telemetry service's own writer and readers stay where they are. */
export class SqliteTelemetryStore implements TelemetryStore {
  readonly #s: SqliteSession;

  constructor(session: SqliteSession) {
    this.#s = session;
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
