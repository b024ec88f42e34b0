import { eq } from "drizzle-orm";
import type { DbOrTx } from "../../store/sqlite/append-audit.ts";
import type { Sqlite } from "../../store/sqlite/client.ts";
import { assets, devices, variables } from "../../store/sqlite/schema/index.ts";
import type { DataQualitySection, TelemetrySection } from "./content-schema.ts";
import type { ProductionDay } from "./production-day.ts";
import { iso, percent, round12 } from "./report-numbers.ts";
import { rawRows } from "./sql-rows.ts";

/** Width of a rollup bucket (telemetry_rollup_5m), aligned to UTC. */
export const BUCKET_MS = 300_000;

type AssetRow = typeof assets.$inferSelect;

type Expectation = { pollIntervalMs: number | null; unit: string | null };

type SeriesStats = {
  count: number;
  sum: number;
  min: number;
  max: number;
  firstBucket: number;
  lastBucket: number;
};

type Gap = { assetId: string; variable: string; startMs: number; endMs: number };

/*
 * Every figure comes from the 5-minute rollups, never from raw rows (DESIGN.md, Storage: a day of
 * a project is ~300k rollup rows against ~8.6M raw rows). A bucket belongs to the day that
 * contains its start; every zone in use today has an offset that is a multiple of 5 minutes, so
 * the day's edges fall on bucket edges.
 */

const statsSql = `
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
  ) WHERE bucket - prev > ${BUCKET_MS}`;

export function collectTelemetry(
  db: DbOrTx,
  sqlite: Sqlite,
  projectId: string,
  day: ProductionDay,
  projectAssets: readonly AssetRow[],
): { telemetry: TelemetrySection; dataQuality: DataQualitySection } {
  const firstBucket = Math.ceil(day.startMs / BUCKET_MS) * BUCKET_MS;
  const endBucket = Math.ceil(day.endMs / BUCKET_MS) * BUCKET_MS;
  const dayMs = day.endMs - day.startMs;

  const series = rawRows<[number, string, string, string | null]>(
    sqlite,
    "SELECT id, asset_id, variable, unit FROM telemetry_series WHERE project_id = ?",
    projectId,
  );

  const stats = new Map<number, SeriesStats>();
  type StatsRow = [number, number, number, number, number, number, number];
  for (const [id, count, sum, min, max, fb, lb] of rawRows<StatsRow>(
    sqlite,
    statsSql,
    firstBucket,
    endBucket,
    projectId,
  )) {
    stats.set(id, { count, sum, min, max, firstBucket: fb, lastBucket: lb });
  }
  const holes = new Map<number, [number, number][]>();
  for (const [id, prev, bucket] of rawRows<[number, number, number]>(
    sqlite,
    holesSql,
    firstBucket,
    endBucket,
    projectId,
  )) {
    const list = holes.get(id) ?? [];
    list.push([prev + BUCKET_MS, bucket]);
    holes.set(id, list);
  }

  const expectations = configuredVariables(db, projectId);
  const seriesByAsset = new Map<string, Map<string, { id: number; unit: string | null }>>();
  for (const [id, assetId, variable, unit] of series) {
    const m = seriesByAsset.get(assetId) ?? new Map();
    m.set(variable, { id, unit });
    seriesByAsset.set(assetId, m);
  }

  const gaps: Gap[] = [];
  let received = 0;
  let expectedTotal = 0;
  const sortedAssets = [...projectAssets].sort((a, b) => cmp(a.name, b.name) || cmp(a.id, b.id));
  const assetsOut: TelemetrySection["assets"] = sortedAssets.map((asset) => {
    const ofAsset = seriesByAsset.get(asset.id) ?? new Map<string, { id: number; unit: string | null }>();
    const configured = expectations.get(asset.id) ?? new Map<string, Expectation>();
    const names = [...new Set([...ofAsset.keys(), ...configured.keys()])].sort(cmp);
    const variablesOut = names.map((variable) => {
      const s = ofAsset.get(variable);
      const st = s ? stats.get(s.id) : undefined;
      const poll = configured.get(variable)?.pollIntervalMs ?? null;
      const expected = poll === null ? null : Math.floor(dayMs / poll);
      const count = st?.count ?? 0;
      received += count;
      expectedTotal += expected ?? 0;
      gaps.push(
        ...seriesGaps({
          assetId: asset.id,
          variable,
          poll,
          stats: st,
          holes: s ? (holes.get(s.id) ?? []) : [],
          firstBucket,
          endBucket,
        }),
      );
      return {
        variable,
        unit: s?.unit ?? configured.get(variable)?.unit ?? null,
        count,
        min: st ? st.min : null,
        max: st ? st.max : null,
        avg: st && st.count > 0 ? round12(st.sum / st.count) : null,
        first_bucket: st ? iso(st.firstBucket) : null,
        last_bucket: st ? iso(st.lastBucket) : null,
        poll_interval_ms: poll,
        expected_samples: expected,
        completeness_pct: expected ? percent(count, expected) : null,
      };
    });
    return {
      asset_id: asset.id,
      asset_name: asset.name,
      asset_type: asset.assetType,
      variables: variablesOut,
    };
  });

  const gapMinutes = gaps.reduce((n, g) => n + (g.endMs - g.startMs) / 60_000, 0);
  return {
    telemetry: {
      source: "telemetry_rollup_5m",
      bucket_seconds: 300,
      series_count: assetsOut.reduce((n, a) => n + a.variables.length, 0),
      samples_received: received,
      samples_expected: expectedTotal,
      assets: assetsOut,
    },
    dataQuality: {
      complete: gaps.length === 0,
      gap_count: gaps.length,
      gap_minutes: Math.round(gapMinutes),
      series_with_gaps: new Set(gaps.map((g) => `${g.assetId}\u0000${g.variable}`)).size,
      gaps: gaps.map((g) => ({
        asset_id: g.assetId,
        variable: g.variable,
        start: iso(g.startMs),
        end: iso(g.endMs),
        missing_buckets: (g.endMs - g.startMs) / BUCKET_MS,
        minutes: Math.round((g.endMs - g.startMs) / 60_000),
      })),
    },
  };
}

/**
 * Runs of empty buckets of one series, merged into ranges. A series with a configured poll
 * interval is expected over the whole day; one without (telemetry for a tag no device defines)
 * only between its first and last bucket. A run is a gap when it lasts at least one poll
 * interval (and at least one bucket): a variable polled every 15 minutes leaves two empty
 * buckets between samples by design.
 */
function seriesGaps(input: {
  assetId: string;
  variable: string;
  poll: number | null;
  stats: SeriesStats | undefined;
  holes: [number, number][];
  firstBucket: number;
  endBucket: number;
}): Gap[] {
  const { assetId, variable, poll, stats } = input;
  const runs: [number, number][] = [];
  if (!stats) {
    if (poll !== null && input.endBucket > input.firstBucket) runs.push([input.firstBucket, input.endBucket]);
  } else {
    if (poll !== null && stats.firstBucket > input.firstBucket)
      runs.push([input.firstBucket, stats.firstBucket]);
    runs.push(...input.holes);
    const afterLast = stats.lastBucket + BUCKET_MS;
    if (poll !== null && afterLast < input.endBucket) runs.push([afterLast, input.endBucket]);
  }
  const minBuckets = Math.max(1, Math.ceil((poll ?? BUCKET_MS) / BUCKET_MS));
  return runs
    .filter(([start, end]) => (end - start) / BUCKET_MS >= minBuckets)
    .map(([startMs, endMs]) => ({ assetId, variable, startMs, endMs }));
}

/**
 * The poll interval expected of each (asset, alias): the variables its devices define, matched by
 * device → asset and alias = the telemetry variable name. When several devices of an asset define
 * the same alias, the shortest interval among the enabled ones applies; a disabled variable, or one
 * on a disabled device, is not polled, so nothing is expected of it (null).
 */
function configuredVariables(db: DbOrTx, projectId: string): Map<string, Map<string, Expectation>> {
  const rows = db
    .select({
      assetId: devices.assetId,
      alias: variables.alias,
      unit: variables.unit,
      pollIntervalMs: variables.pollIntervalMs,
      variableEnabled: variables.enabled,
      deviceEnabled: devices.enabled,
    })
    .from(variables)
    .innerJoin(devices, eq(devices.id, variables.deviceId))
    .innerJoin(assets, eq(assets.id, devices.assetId))
    .where(eq(assets.projectId, projectId))
    .all();
  const out = new Map<string, Map<string, Expectation>>();
  for (const r of rows) {
    const ofAsset = out.get(r.assetId) ?? new Map<string, Expectation>();
    const polled = r.variableEnabled && r.deviceEnabled && r.pollIntervalMs > 0;
    const prev = ofAsset.get(r.alias);
    const poll = polled ? r.pollIntervalMs : null;
    const best =
      prev?.pollIntervalMs == null
        ? poll
        : poll === null
          ? prev.pollIntervalMs
          : Math.min(prev.pollIntervalMs, poll);
    ofAsset.set(r.alias, { pollIntervalMs: best, unit: prev?.unit ?? r.unit });
    out.set(r.assetId, ofAsset);
  }
  return out;
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
