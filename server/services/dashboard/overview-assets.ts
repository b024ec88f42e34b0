import type { AssetOverview, KeyVariable } from "../../../shared/dashboard/overview.ts";
import { ROLLUP_BUCKET_MS, type SeriesReading } from "../../store/ports/telemetry-store.ts";
import type { AssetRow } from "../../store/rows.ts";
import type { StorePorts } from "../../store/store.ts";

/** Variables shown per asset on the overview: what fits a phone's card, the rest is a link away. */
export const KEY_VARIABLES = 4;
/** Series per project whose newest reading the overview reads (a bound, far above a real project). */
export const SERIES_LIMIT = 20_000;

export type SparkWindow = { fromBucket: number; toBucket: number };

type Candidate = { variable: string; unit: string | null; watched: boolean; polled: boolean };

/**
 * A project's assets (by name) with their key variables' newest values and sparklines. Key
 * variables are those an operator watches first: named in an enabled alert rule, then polled by an
 * enabled device, then any other that reports; by name within each. Values come from each
 * series' newest reading (one read for the project), sparklines from the 5-minute rollups
 * (callers settle the project's rollups first), rounded to 4 significant digits: a sparkline is a
 * few dozen pixels tall.
 */
export async function assetsOverview(
  ports: Pick<StorePorts, "telemetry" | "field" | "alarms">,
  projectId: string,
  assets: readonly AssetRow[],
  spark: SparkWindow,
): Promise<AssetOverview[]> {
  const watched = new Set((await ports.alarms.enabledRulesOf(projectId)).map((r) => r.variableAlias));
  const devices = await ports.field.devicesOf(assets.map((a) => a.id));
  const deviceById = new Map(devices.map((d) => [d.id, d]));
  const candidates = new Map<string, Map<string, Candidate>>();
  const polls = new Map<string, number>();
  const candidate = (assetId: string, variable: string, unit: string | null) => {
    let ofAsset = candidates.get(assetId);
    if (!ofAsset) {
      ofAsset = new Map();
      candidates.set(assetId, ofAsset);
    }
    let c = ofAsset.get(variable);
    if (!c) {
      c = { variable, unit, watched: watched.has(variable), polled: false };
      ofAsset.set(variable, c);
    }
    return c;
  };
  for (const v of await ports.field.variablesOf(devices.map((d) => d.id))) {
    const device = deviceById.get(v.deviceId);
    if (!device) continue;
    const c = candidate(device.assetId, v.alias, v.unit);
    if (v.enabled && device.enabled && v.pollIntervalMs > 0) {
      c.polled = true;
      const best = polls.get(device.assetId);
      polls.set(device.assetId, best === undefined ? v.pollIntervalMs : Math.min(best, v.pollIntervalMs));
    }
  }
  const latest = new Map<string, SeriesReading>();
  const newest = new Map<string, number>();
  for (const r of await ports.telemetry.recentReadings(SERIES_LIMIT, [projectId])) {
    latest.set(`${r.assetId}\u0000${r.variable}`, r);
    candidate(r.assetId, r.variable, r.unit);
    newest.set(r.assetId, Math.max(newest.get(r.assetId) ?? r.ts, r.ts));
  }

  const out: AssetOverview[] = [];
  for (const asset of [...assets].sort((a, b) => cmp(a.name, b.name) || cmp(a.id, b.id))) {
    const all = [...(candidates.get(asset.id)?.values() ?? [])];
    const keys = all.sort(byInterest).slice(0, KEY_VARIABLES);
    const series = await ports.telemetry.assetSeries(
      asset.id,
      keys.map((k) => k.variable),
    );
    const key_variables: KeyVariable[] = [];
    for (const k of keys) {
      const reading = latest.get(`${asset.id}\u0000${k.variable}`);
      const ref = series.find((s) => s.variable === k.variable);
      key_variables.push({
        variable: k.variable,
        unit: reading?.unit ?? ref?.unit ?? k.unit,
        value: reading?.value ?? null,
        timestamp: reading ? new Date(reading.ts).toISOString() : null,
        spark: ref ? await sparkline(ports.telemetry, ref.id, spark) : [],
      });
    }
    const last = newest.get(asset.id);
    out.push({
      asset_id: asset.id,
      name: asset.name,
      asset_type: asset.assetType,
      variable_count: all.length,
      poll_interval_ms: polls.get(asset.id) ?? null,
      last_reading_at: last === undefined ? null : new Date(last).toISOString(),
      key_variables,
    });
  }
  return out;
}

async function sparkline(
  telemetry: StorePorts["telemetry"],
  seriesId: number,
  { fromBucket, toBucket }: SparkWindow,
): Promise<(number | null)[]> {
  const points: (number | null)[] = new Array((toBucket - fromBucket) / ROLLUP_BUCKET_MS).fill(null);
  for (const [bucket, count, sum] of await telemetry.windows(seriesId, "5m", fromBucket, toBucket)) {
    if (count > 0) points[(bucket - fromBucket) / ROLLUP_BUCKET_MS] = Number((sum / count).toPrecision(4));
  }
  return points;
}

const rank = (c: Candidate) => (c.watched ? 0 : c.polled ? 1 : 2);
const byInterest = (a: Candidate, b: Candidate) => rank(a) - rank(b) || cmp(a.variable, b.variable);
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
