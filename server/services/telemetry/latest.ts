import { notFound } from "../../http/errors.ts";
import { type AuthContext, canSeeProject } from "../auth/auth-context.ts";
import type { ServiceContext } from "../context.ts";
import { telemetryService } from "./service.ts";

export type LatestReading = { variable: string; value: number; unit?: string };
export type LatestPayload = { asset_id: string; timestamp: string; readings: LatestReading[] };

type SeriesRow = { id: number; variable: string; unit: string | null };

/** 404 unless the asset exists in one of the caller's projects (existence is not revealed). */
export function visibleAssetProject(ctx: ServiceContext, auth: AuthContext, assetId: string): string {
  const projectId = telemetryService(ctx).projectOfAsset(assetId);
  if (projectId === undefined || !canSeeProject(auth, projectId)) throw notFound("asset");
  return projectId;
}

/**
 * GET /telemetry/{asset_id}: the newest `limit` payloads, newest first. A payload is every reading
 * of the asset stamped with one timestamp, so `limit` counts timestamps, not readings; readings
 * are ordered by variable and carry their series' unit. Raw readings only exist inside the
 * retention window (TELEMETRY_RETENTION_DAYS).
 *
 * Each series contributes at most its own newest `limit` timestamps, which is all the answer can
 * need from it: one indexed range read per series, newest first.
 */
export function latestTelemetry(
  ctx: ServiceContext,
  auth: AuthContext,
  assetId: string,
  limit: number,
): LatestPayload[] {
  visibleAssetProject(ctx, auth, assetId);
  const { sqlite } = ctx;
  const series = sqlite
    .prepare<[string], SeriesRow>("SELECT id, variable, unit FROM telemetry_series WHERE asset_id = ?")
    .all(assetId);
  series.sort((a, b) => (a.variable < b.variable ? -1 : a.variable > b.variable ? 1 : 0));
  const newest = sqlite
    .prepare<[number, number], [number, number]>(
      "SELECT ts, value FROM telemetry_raw WHERE series_id = ? ORDER BY ts DESC LIMIT ?",
    )
    .raw();
  const byTs = new Map<number, LatestReading[]>();
  for (const s of series) {
    for (const [ts, value] of newest.all(s.id, limit)) {
      let readings = byTs.get(ts);
      if (!readings) {
        readings = [];
        byTs.set(ts, readings);
      }
      readings.push(
        s.unit === null ? { variable: s.variable, value } : { variable: s.variable, value, unit: s.unit },
      );
    }
  }
  const timestamps = [...byTs.keys()].sort((a, b) => b - a).slice(0, limit);
  return timestamps.map((ts) => ({
    asset_id: assetId,
    timestamp: new Date(ts).toISOString(),
    readings: byTs.get(ts) ?? [],
  }));
}
