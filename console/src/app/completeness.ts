import type { AnhReportPreview } from "../api/compliance-types.ts";
import type { ReportPreview } from "../api/types.ts";

/**
 * Today's completeness so far, 0..1, from the preview of today's report: the preview expects
 * samples for the whole day (docs/anh-report.md, "Preview"), so the expectation is scaled to the
 * part of the day that has elapsed. Null when nothing is polled (no expected samples).
 */
export function completenessSoFar(preview: ReportPreview): number | null {
  const { samples_received: received, samples_expected: expected } = preview.content.telemetry;
  const start = Date.parse(preview.period_start);
  const end = Date.parse(preview.period_end);
  const asOf = Date.parse(preview.as_of);
  if (!(expected > 0) || !(end > start)) return null;
  const elapsed = Math.min(1, Math.max(0, (asOf - start) / (end - start)));
  const expectedSoFar = expected * elapsed;
  if (expectedSoFar < 1) return null;
  return Math.min(1, received / expectedSoFar);
}

type Range = [start: number, end: number];

/** One series' gaps so far: how many runs without readings, and how many minutes they cover. */
export type SeriesGaps = { assetName: string; variable: string; gaps: number; minutes: number };

/**
 * The data quality of a report preview as a compliance officer reads it, cut at `as_of`: the
 * report's gaps run to the end of the day, and its `gap_minutes` is summed over every series (7
 * series missing a whole day make 10,080 "minutes" of a 1,440-minute day). Here minutes are either
 * one series' own, or the time of the day that no series covered.
 */
export type DataQualitySoFar = {
  /** Minutes of the production day elapsed at `as_of` (all of it once the day has closed). */
  elapsedMinutes: number;
  seriesCount: number;
  /** Gaps so far, over every series. */
  gapCount: number;
  /** The series with a gap so far, most minutes first. */
  series: SeriesGaps[];
  /**
   * Minutes so far in which no polled series had a reading: every series with a poll interval was
   * in a gap at once. Null when nothing is polled.
   */
  uncoveredMinutes: number | null;
};

export function dataQualitySoFar(preview: AnhReportPreview): DataQualitySoFar {
  const start = Date.parse(preview.period_start);
  const cut = Math.min(Date.parse(preview.as_of), Date.parse(preview.period_end));
  const { telemetry, data_quality } = preview.content;
  const key = (assetId: string, variable: string) => `${assetId}\u0000${variable}`;
  const names = new Map<string, string>();
  const polled: string[] = [];
  for (const asset of telemetry.assets) {
    for (const v of asset.variables) {
      names.set(key(asset.asset_id, v.variable), asset.asset_name);
      if (v.poll_interval_ms !== null) polled.push(key(asset.asset_id, v.variable));
    }
  }
  const rangesOf = new Map<string, { assetName: string; variable: string; ranges: Range[] }>();
  for (const g of data_quality.gaps) {
    const from = Math.max(start, Date.parse(g.start));
    const to = Math.min(cut, Date.parse(g.end));
    if (!(to > from)) continue;
    const k = key(g.asset_id, g.variable);
    const entry = rangesOf.get(k) ?? {
      assetName: names.get(k) ?? g.asset_id,
      variable: g.variable,
      ranges: [],
    };
    entry.ranges.push([from, to]);
    rangesOf.set(k, entry);
  }
  const series = [...rangesOf.values()]
    .map((s) => ({
      assetName: s.assetName,
      variable: s.variable,
      gaps: s.ranges.length,
      minutes: toMinutes(s.ranges.reduce((n, [a, b]) => n + (b - a), 0)),
    }))
    .sort(
      (a, b) =>
        b.minutes - a.minutes ||
        a.assetName.localeCompare(b.assetName) ||
        a.variable.localeCompare(b.variable),
    );
  let uncovered: Range[] | null = null;
  for (const k of polled) {
    const own = [...(rangesOf.get(k)?.ranges ?? [])].sort((a, b) => a[0] - b[0]);
    uncovered = uncovered === null ? own : intersect(uncovered, own);
  }
  return {
    elapsedMinutes: toMinutes(Math.max(0, cut - start)),
    seriesCount: telemetry.series_count,
    gapCount: series.reduce((n, s) => n + s.gaps, 0),
    series,
    uncoveredMinutes: uncovered === null ? null : toMinutes(uncovered.reduce((n, [a, b]) => n + (b - a), 0)),
  };
}

/** The time both sorted lists of disjoint ranges cover. */
function intersect(a: readonly Range[], b: readonly Range[]): Range[] {
  const out: Range[] = [];
  let i = 0;
  let j = 0;
  for (;;) {
    const x = a[i];
    const y = b[j];
    if (!x || !y) return out;
    const [as, ae] = x;
    const [bs, be] = y;
    const from = Math.max(as, bs);
    const to = Math.min(ae, be);
    if (to > from) out.push([from, to]);
    if (ae < be) i++;
    else j++;
  }
}

const toMinutes = (ms: number) => Math.round(ms / 60_000);
