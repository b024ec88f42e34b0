import { and, asc, desc, eq, gte, lt, lte } from "drizzle-orm";
import type { DbOrTx } from "../../store/sqlite/append-audit.ts";
import { meterReadings } from "../../store/sqlite/schema/index.ts";
import { supersededIds } from "./collect-records.ts";
import type { MeterReadingsSection } from "./content-schema.ts";
import type { ProductionDay } from "./production-day.ts";
import { round12 } from "./report-numbers.ts";

type ReadingRow = typeof meterReadings.$inferSelect;

/**
 * Meter readings taken within the day, per meter. A meter's opening value is the day's previous
 * close: its latest current reading at or before the start of the day; a meter with no earlier
 * reading opens with its first reading of the day. The closing value is its last reading of the
 * day; `delta` is closing − opening (the day's throughput for a totaliser).
 */
export function collectMeterReadings(
  db: DbOrTx,
  projectId: string,
  day: ProductionDay,
  assetNames: ReadonlyMap<string, string>,
): MeterReadingsSection {
  const superseded = supersededIds(db, meterReadings, projectId);
  const rows = db
    .select()
    .from(meterReadings)
    .where(
      and(
        eq(meterReadings.projectId, projectId),
        gte(meterReadings.readAt, new Date(day.startMs)),
        lt(meterReadings.readAt, new Date(day.endMs)),
      ),
    )
    .orderBy(asc(meterReadings.readAt), asc(meterReadings.id))
    .all()
    .filter((r) => !superseded.has(r.id));

  const byMeter = new Map<string, ReadingRow[]>();
  for (const r of rows) {
    const list = byMeter.get(r.meterId) ?? [];
    list.push(r);
    byMeter.set(r.meterId, list);
  }

  const meters: MeterReadingsSection["meters"] = [];
  for (const [meterId, readings] of byMeter) {
    const first = readings[0];
    const last = readings[readings.length - 1];
    if (!first || !last) continue;
    const previous = previousClose(db, projectId, meterId, day.startMs, superseded);
    const open = previous ?? first;
    meters.push({
      meter_id: meterId,
      meter_name: assetNames.get(meterId) ?? null,
      unit: [...readings].reverse().find((r) => r.unit !== null)?.unit ?? null,
      opening: {
        reading_id: open.id,
        value: open.readingValue,
        read_at: open.readAt.toISOString(),
        carried_over: previous !== undefined,
      },
      closing: { reading_id: last.id, value: last.readingValue, read_at: last.readAt.toISOString() },
      delta: round12(last.readingValue - open.readingValue),
      readings: readings.map((r) => ({
        id: r.id,
        value: r.readingValue,
        read_at: r.readAt.toISOString(),
        unit: r.unit,
        supersedes: r.supersedes,
        correction_reason: r.correctionReason,
      })),
    });
  }
  meters.sort((a, b) => compareNames(a.meter_name, b.meter_name) || cmp(a.meter_id, b.meter_id));
  return { count: rows.length, meters };
}

/**
 * The meter's latest current reading at or before `startMs`. Read newest first in small pages:
 * usually the first row is it, and superseded rows are skipped.
 */
function previousClose(
  db: DbOrTx,
  projectId: string,
  meterId: string,
  startMs: number,
  superseded: ReadonlySet<string>,
): ReadingRow | undefined {
  let before = new Date(startMs);
  for (;;) {
    const page = db
      .select()
      .from(meterReadings)
      .where(
        and(
          eq(meterReadings.projectId, projectId),
          eq(meterReadings.meterId, meterId),
          lte(meterReadings.readAt, before),
        ),
      )
      .orderBy(desc(meterReadings.readAt), desc(meterReadings.id))
      .limit(50)
      .all();
    const found = page.find((r) => !superseded.has(r.id));
    if (found) return found;
    const oldest = page[page.length - 1];
    if (page.length < 50 || !oldest) return undefined;
    // Rows sharing the oldest instant are re-read; they are all superseded, so progress is made
    // once the instant moves back.
    before = new Date(oldest.readAt.getTime() - 1);
  }
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const compareNames = (a: string | null, b: string | null) => cmp(a ?? "", b ?? "");
