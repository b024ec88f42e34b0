import type { InstantReading } from "../../shared/telemetry/batch.ts";
import type { TelemetryPayloadInput } from "../services/telemetry/ingest.ts";

/**
 * Validated payloads in columns, as they cross from an HTTP worker thread to the main thread:
 * numbers in one transferable buffer, each distinct string once. Cloning the payloads as objects
 * cost the main thread ~3 ms for a 5,000-reading batch (about 0.6 µs a reading) and ~19 µs for
 * a 20-reading payload; rebuilding them from columns costs a fraction of that (measured: see the
 * README, HTTP workers).
 */
export type PayloadColumns = {
  /** Asset ids, timestamps, variable names and units, each distinct string once. */
  strings: string[];
  /**
   * [values: Float64 × readings][per payload: asset, timestamp (-1: none), reading count]
   * [per reading: variable, unit (-1: none)] as Int32, in one buffer.
   */
  buffer: ArrayBuffer;
  payloads: number;
  readings: number;
};

export function toColumns(payloads: readonly TelemetryPayloadInput[]): PayloadColumns {
  let readings = 0;
  for (const p of payloads) readings += p.readings.length;
  const buffer = new ArrayBuffer(readings * 8 + (payloads.length * 3 + readings * 2) * 4);
  const values = new Float64Array(buffer, 0, readings);
  const ints = new Int32Array(buffer, readings * 8);
  const strings: string[] = [];
  const index = new Map<string, number>();
  const indexOf = (s: string): number => {
    let i = index.get(s);
    if (i === undefined) {
      i = strings.length;
      strings.push(s);
      index.set(s, i);
    }
    return i;
  };
  let head = 0;
  let tail = payloads.length * 3;
  let r = 0;
  for (const p of payloads) {
    ints[head++] = indexOf(p.asset_id);
    ints[head++] = p.timestamp === undefined ? -1 : indexOf(p.timestamp);
    ints[head++] = p.readings.length;
    for (const reading of p.readings) {
      values[r++] = reading.value;
      ints[tail++] = indexOf(reading.variable);
      ints[tail++] = reading.unit === undefined ? -1 : indexOf(reading.unit);
    }
  }
  return { strings, buffer, payloads: payloads.length, readings };
}

export function fromColumns(columns: PayloadColumns): TelemetryPayloadInput[] {
  const { strings, buffer, readings } = columns;
  const values = new Float64Array(buffer, 0, readings);
  const ints = new Int32Array(buffer, readings * 8);
  const text = (i: number | undefined): string => strings[i ?? -1] ?? "";
  const out: TelemetryPayloadInput[] = new Array(columns.payloads);
  let tail = columns.payloads * 3;
  let r = 0;
  for (let p = 0; p < columns.payloads; p++) {
    const asset = text(ints[3 * p]);
    const timestamp = ints[3 * p + 1] ?? -1;
    const count = ints[3 * p + 2] ?? 0;
    const list: InstantReading[] = new Array(count);
    for (let k = 0; k < count; k++) {
      const variable = text(ints[tail++]);
      const unit = ints[tail++] ?? -1;
      const value = values[r++] ?? Number.NaN;
      list[k] = unit === -1 ? { variable, value } : { variable, value, unit: text(unit) };
    }
    out[p] =
      timestamp === -1
        ? { asset_id: asset, readings: list }
        : { asset_id: asset, timestamp: text(timestamp), readings: list };
  }
  return out;
}
