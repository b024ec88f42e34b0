import { notFound } from "../../errors.ts";
import { type AuthContext, canSeeProject } from "../auth/auth-context.ts";
import type { ServiceContext } from "../context.ts";
import { LATEST_LIMIT_DEFAULT } from "./limits.ts";
import { type RawQuery, rawRange } from "./raw-filter.ts";
import type { TelemetryService } from "./service.ts";

export type LatestReading = { variable: string; value: number; unit?: string };
export type LatestPayload = { asset_id: string; timestamp: string; readings: LatestReading[] };

/** 404 unless the asset exists in one of the caller's projects (existence is not revealed). */
export async function visibleAssetProject(
  ctx: ServiceContext,
  auth: AuthContext,
  assetId: string,
): Promise<string> {
  const projectId = await ctx.store.telemetry.projectOfAsset(assetId);
  if (projectId === undefined || !canSeeProject(auth, projectId)) throw notFound("asset");
  return projectId;
}

/**
 * GET /telemetry/{asset_id} as JSON: the newest `limit` payloads in [from, to], newest first. A
 * payload is every reading of the asset stamped with one timestamp, so `limit` counts timestamps,
 * not readings; readings are ordered by variable and carry their series' unit; `variable` keeps
 * only those series. Raw readings only exist inside the retention window (TELEMETRY_RETENTION_DAYS).
 *
 * Each series contributes at most its own newest `limit` timestamps, which is all the answer can
 * need from it: one indexed range read per series, newest first, raw rows and packed blocks alike.
 */
export async function latestTelemetry(
  ctx: ServiceContext,
  telemetry: TelemetryService,
  auth: AuthContext,
  assetId: string,
  query: RawQuery,
): Promise<LatestPayload[]> {
  const { fromMs, toMs } = rawRange(query);
  const limit = query.limit ?? LATEST_LIMIT_DEFAULT;
  await visibleAssetProject(ctx, auth, assetId);
  const series = await ctx.store.telemetry.assetSeries(assetId, query.variable);
  const points = telemetry.points;
  const byTs = new Map<number, LatestReading[]>();
  for (const s of series) {
    for (const [ts, value] of await points.descending(s.id, fromMs, toMs, limit)) {
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
