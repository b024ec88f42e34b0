import type { BatchSeries, TelemetryPoint } from "../../../shared/telemetry/batch.ts";

/**
 * The stored points of a series (`stored` marks them; undefined: all), with the series' unit when
 * the readings came without one. The series itself when nothing differs: no copy on the usual path.
 */
export function storedPart(
  s: BatchSeries,
  seriesUnit: string | null,
  stored: Uint8Array | undefined,
): BatchSeries {
  const unit = s.unit ?? seriesUnit ?? undefined;
  if (!stored && unit === s.unit) return s;
  const points: readonly TelemetryPoint[] = stored ? s.points.filter((_, i) => stored[i] === 1) : s.points;
  return unit === undefined
    ? { projectId: s.projectId, assetId: s.assetId, variable: s.variable, points }
    : { projectId: s.projectId, assetId: s.assetId, variable: s.variable, unit, points };
}
