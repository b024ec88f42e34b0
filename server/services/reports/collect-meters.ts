import type { RecordStore } from "../../store/ports/record-store.ts";
import type { MeterReadingRow } from "../../store/rows.ts";
import type { MeterReadingsSection } from "./content-schema.ts";
import type { ProductionDay } from "./production-day.ts";
import { round12 } from "./report-numbers.ts";

/**
 * Meter readings taken within the day, per meter. A meter's opening value is the day's previous
 * close: its latest current reading at or before the start of the day; a meter with no earlier
 * reading opens with its first reading of the day. The closing value is its last reading of the
 * day; `delta` is closing − opening (the day's throughput for a totaliser).
 */
export async function collectMeterReadings(
  records: RecordStore,
  projectId: string,
  day: ProductionDay,
  assetNames: ReadonlyMap<string, string>,
): Promise<MeterReadingsSection> {
  const rows = await records.currentIn(
    "meter_reading",
    projectId,
    new Date(day.startMs),
    new Date(day.endMs),
  );

  const byMeter = new Map<string, MeterReadingRow[]>();
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
    // The day's previous close: the latest current reading at or before the start of the day.
    const previous = await records.meterReadingAtOrBefore(projectId, meterId, new Date(day.startMs));
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

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const compareNames = (a: string | null, b: string | null) => cmp(a ?? "", b ?? "");
