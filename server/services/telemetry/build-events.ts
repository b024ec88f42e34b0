import type { TelemetryEvent } from "../events.ts";
import type { TelemetryItem } from "./types.ts";
import type { WrittenJob } from "./writer.ts";

/**
 * The telemetry events of a written request: one per payload with a stored reading, holding its
 * stored readings, each with its unit (the reading's, else its series').
 */
export function buildEvents(items: readonly TelemetryItem[], written: WrittenJob): TelemetryEvent[] {
  const units = new Map(written.units);
  const events: TelemetryEvent[] = [];
  let row = 0;
  for (const item of items) {
    const readings: TelemetryEvent["readings"] = [];
    for (const reading of item.readings) {
      if (written.stored[row] === 1) {
        const unit = reading.unit ?? units.get(row);
        readings.push(
          unit === undefined ? { variable: reading.variable, value: reading.value } : { ...reading, unit },
        );
      }
      row++;
    }
    if (readings.length > 0) {
      events.push({
        projectId: item.projectId,
        assetId: item.assetId,
        timestamp: new Date(item.ts).toISOString(),
        readings,
        source: item.source ?? "http",
      });
    }
  }
  return events;
}
