import { isDeepStrictEqual } from "node:util";
import { asc, desc, eq } from "drizzle-orm";
import * as pg from "../postgres/schema/index.ts";
import * as lite from "../sqlite/schema/index.ts";
import type { Store } from "../store.ts";
import type { SqliteSource } from "./source.ts";
import type { PostgresTarget } from "./target.ts";

const DAY_MS = 86_400_000;
/** Per sampled series: its newest raw rows and packed blocks. */
const RAW_ROWS = 1000;
const BLOCKS = 20;

export type TelemetrySample = {
  series: number;
  rawRows: number;
  blocks: number;
  /** Project days whose rollups were read through TelemetryStore.seriesRollups on both sides. */
  rollupWindows: number;
  equal: boolean;
};

/** `n` items spread evenly over `items` (all of them when there are fewer). */
function spread<T>(items: readonly T[], n: number): T[] {
  if (items.length <= n) return [...items];
  return Array.from({ length: n }, (_, i) => items[Math.floor((i * items.length) / n)]).filter(
    (item): item is T => item !== undefined,
  );
}

/**
 * Reads a sample of series on both sides and compares what comes back: the series row, its
 * newest raw readings, its newest packed blocks (bytes), the rollups of its project over the day
 * of its newest bucket (through TelemetryStore), and the most recent readings of every project.
 */
export async function compareTelemetrySample(
  source: SqliteSource,
  sourceStore: Store,
  target: PostgresTarget,
  sampleSeries: number,
  problems: string[],
): Promise<TelemetrySample> {
  const sample: TelemetrySample = { series: 0, rawRows: 0, blocks: 0, rollupWindows: 0, equal: true };
  const differ = (what: string) => {
    sample.equal = false;
    problems.push(`telemetry: ${what}: not the same on the target`);
  };
  const from = source.db;
  const to = target.handle.db;
  const all = from.select().from(lite.telemetrySeries).orderBy(asc(lite.telemetrySeries.id)).all();
  for (const series of spread(all, sampleSeries)) {
    sample.series++;
    const [twin] = await to.select().from(pg.telemetrySeries).where(eq(pg.telemetrySeries.id, series.id));
    // rolled_to is PostgreSQL's own (SQLite keeps the roll-up watermark in the writer's memory):
    // the copy leaves it null, which the adapter reads back from the rollups.
    const { rolledTo: _, ...copied } = twin ?? { rolledTo: null };
    if (!twin || !isDeepStrictEqual(copied, series)) differ(`series ${series.id}`);

    const raw = from
      .select({ ts: lite.telemetryRaw.ts, value: lite.telemetryRaw.value })
      .from(lite.telemetryRaw)
      .where(eq(lite.telemetryRaw.seriesId, series.id))
      .orderBy(desc(lite.telemetryRaw.ts))
      .limit(RAW_ROWS)
      .all();
    const rawTwin = await to
      .select({ ts: pg.telemetryRaw.ts, value: pg.telemetryRaw.value })
      .from(pg.telemetryRaw)
      .where(eq(pg.telemetryRaw.seriesId, series.id))
      .orderBy(desc(pg.telemetryRaw.ts))
      .limit(RAW_ROWS);
    sample.rawRows += raw.length;
    if (!isDeepStrictEqual(rawTwin, raw)) differ(`raw readings of series ${series.id}`);

    const blocks = from
      .select()
      .from(lite.telemetryPacked)
      .where(eq(lite.telemetryPacked.seriesId, series.id))
      .orderBy(desc(lite.telemetryPacked.firstTs))
      .limit(BLOCKS)
      .all();
    const blocksTwin = await to
      .select()
      .from(pg.telemetryPacked)
      .where(eq(pg.telemetryPacked.seriesId, series.id))
      .orderBy(desc(pg.telemetryPacked.firstTs))
      .limit(BLOCKS);
    sample.blocks += blocks.length;
    if (!isDeepStrictEqual(blocksTwin, blocks)) differ(`packed blocks of series ${series.id}`);

    const newest = from
      .select({ bucket: lite.telemetryRollup5m.bucket })
      .from(lite.telemetryRollup5m)
      .where(eq(lite.telemetryRollup5m.seriesId, series.id))
      .orderBy(desc(lite.telemetryRollup5m.bucket))
      .limit(1)
      .get();
    if (newest) {
      const day = Math.floor(newest.bucket / DAY_MS) * DAY_MS;
      const read = (store: Store) => store.telemetry.seriesRollups(series.projectId, day, day + DAY_MS);
      sample.rollupWindows++;
      if (!isDeepStrictEqual(await read(target.store), await read(sourceStore))) {
        differ(`rollups of project ${series.projectId} on ${new Date(day).toISOString().slice(0, 10)}`);
      }
    }
  }
  const recent = (store: Store) => store.telemetry.recentReadings(50);
  if (!isDeepStrictEqual(await recent(target.store), await recent(sourceStore)))
    differ("the most recent readings");
  return sample;
}
