import type { FieldStore } from "../../store/ports/field-store.ts";
import { ROLLUP_BUCKET_MS, type RollupTotals } from "../../store/ports/telemetry-store.ts";
import type { AssetRow, VariableRow } from "../../store/rows.ts";
import type { StorePorts } from "../../store/store.ts";
import type { DataQualitySection, TelemetrySection } from "./content-schema.ts";
import type { ProductionDay } from "./production-day.ts";
import { iso, percent, round12 } from "./report-numbers.ts";

/** Width of a rollup bucket (telemetry_rollup_5m), aligned to UTC. */
export const BUCKET_MS = ROLLUP_BUCKET_MS;

type Expectation = { pollIntervalMs: number | null; unit: string | null };

type Gap = { assetId: string; variable: string; startMs: number; endMs: number };

/*
 * Every figure comes from the 5-minute rollups, never from raw rows (DESIGN.md, Storage: a day of
 * a project is ~300k rollup rows against ~8.6M raw rows). A bucket belongs to the day that
 * contains its start; every zone in use today has an offset that is a multiple of 5 minutes, so
 * the day's edges fall on bucket edges.
 */

export async function collectTelemetry(
  ports: Pick<StorePorts, "telemetry" | "field">,
  projectId: string,
  day: ProductionDay,
  projectAssets: readonly AssetRow[],
): Promise<{ telemetry: TelemetrySection; dataQuality: DataQualitySection }> {
  const firstBucket = Math.ceil(day.startMs / BUCKET_MS) * BUCKET_MS;
  const endBucket = Math.ceil(day.endMs / BUCKET_MS) * BUCKET_MS;
  const dayMs = day.endMs - day.startMs;

  const series = await ports.telemetry.seriesRollups(projectId, firstBucket, endBucket);
  const expectations = await configuredVariables(ports.field, projectAssets);
  type Series = (typeof series)[number];
  const seriesByAsset = new Map<string, Map<string, Series>>();
  for (const s of series) {
    const m = seriesByAsset.get(s.assetId) ?? new Map<string, Series>();
    m.set(s.variable, s);
    seriesByAsset.set(s.assetId, m);
  }

  const gaps: Gap[] = [];
  let received = 0;
  let expectedTotal = 0;
  const sortedAssets = [...projectAssets].sort((a, b) => cmp(a.name, b.name) || cmp(a.id, b.id));
  const assetsOut: TelemetrySection["assets"] = sortedAssets.map((asset) => {
    const ofAsset = seriesByAsset.get(asset.id) ?? new Map<string, Series>();
    const configured = expectations.get(asset.id) ?? new Map<string, Expectation>();
    const names = [...new Set([...ofAsset.keys(), ...configured.keys()])].sort(cmp);
    const variablesOut = names.map((variable) => {
      const s = ofAsset.get(variable);
      const st = s?.totals ?? undefined;
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
          holes: s?.holes ?? [],
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
  stats: RollupTotals | undefined;
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
 * on a disabled device, is not polled, so nothing is expected of it (null). The unit is the first
 * one given, devices by name then id, each device's variables by alias (the alias rule keeps an
 * alias to one device of an asset, so there is only one).
 */
async function configuredVariables(
  field: FieldStore,
  projectAssets: readonly AssetRow[],
): Promise<Map<string, Map<string, Expectation>>> {
  const projectDevices = await field.devicesOf(projectAssets.map((a) => a.id));
  const variablesByDevice = new Map<string, VariableRow[]>();
  for (const v of await field.variablesOf(projectDevices.map((d) => d.id))) {
    const list = variablesByDevice.get(v.deviceId) ?? [];
    list.push(v);
    variablesByDevice.set(v.deviceId, list);
  }
  const rows = projectDevices.flatMap((device) =>
    (variablesByDevice.get(device.id) ?? []).map((v) => ({
      assetId: device.assetId,
      alias: v.alias,
      unit: v.unit,
      pollIntervalMs: v.pollIntervalMs,
      variableEnabled: v.enabled,
      deviceEnabled: device.enabled,
    })),
  );
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
