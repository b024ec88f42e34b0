import { z } from "zod";
import { MAX_READING_MAGNITUDE } from "../../../shared/telemetry-limits.ts";
import type { TelemetryBatchBody, TelemetryPayloadBody, TelemetryReadingBody } from "./schema.ts";

/**
 * The ingest bodies' rules (schema.ts) written out by hand for the request path, where zod's
 * generic parse costs ~1.7 µs per reading. Each function returns what the zod schema's parse
 * returns, or undefined for anything it does not accept at once; the caller then asks zod, whose
 * issues name every bad field. So these may refuse what zod would accept (rare shapes), but must
 * never accept what zod refuses.
 */

// zod's own patterns, so that both sides test a string alike: z.uuid() (RFC 9562 versions 1-8
// with the variant bits, the nil and max UUIDs) and z.iso.datetime({ offset: true }) (RFC 3339:
// seconds required, any fraction, Z or ±hh:mm, 29 February in leap years only).
const UUID = z.regexes.uuid();
const DATE_TIME = z.regexes.datetime({ offset: true });

const VARIABLE_MAX = 128;
const UNIT_MAX = 32;
/** Below this many readings a payload's repeated-variable check compares pairs; above, a Set. */
const PAIRWISE_MAX = 16;

/**
 * zod measures string lengths in code points; a string within `max` UTF-16 units is within `max`
 * code points too. A longer one (possibly astral characters) is left to zod.
 */
const withinUnits = (s: string, max: number) => s.length <= max;

/** Like zod's z.object, a key present with the value undefined comes out present: leave it to zod. */
const absent = (o: object, key: string) => !(key in o);

function parseReading(input: unknown): TelemetryReadingBody | undefined {
  if (typeof input !== "object" || input === null || Array.isArray(input)) return undefined;
  const r = input as Record<string, unknown>;
  const variable = r.variable;
  const value = r.value;
  const unit = r.unit;
  if (
    typeof variable !== "string" ||
    variable.length === 0 ||
    !withinUnits(variable, VARIABLE_MAX) ||
    variable.includes("\0")
  ) {
    return undefined;
  }
  // NaN fails both comparisons; ±Infinity fails one.
  if (typeof value !== "number" || !(value >= -MAX_READING_MAGNITUDE && value <= MAX_READING_MAGNITUDE)) {
    return undefined;
  }
  if (typeof unit === "string") {
    return withinUnits(unit, UNIT_MAX) && !unit.includes("\0") ? { variable, value, unit } : undefined;
  }
  return unit === undefined && absent(r, "unit") ? { variable, value } : undefined;
}

function hasRepeatedVariable(readings: TelemetryReadingBody[]): boolean {
  const n = readings.length;
  if (n <= PAIRWISE_MAX) {
    for (let i = 1; i < n; i++) {
      const name = readings[i]?.variable;
      for (let j = 0; j < i; j++) if (readings[j]?.variable === name) return true;
    }
    return false;
  }
  const seen = new Set<string>();
  for (const r of readings) {
    if (seen.has(r.variable)) return true;
    seen.add(r.variable);
  }
  return false;
}

/**
 * `lastAssetId`: a batch's payloads usually name one asset; a string equal to one already matched
 * needs no second regex test.
 */
function parsePayload(input: unknown, lastAssetId?: string): TelemetryPayloadBody | undefined {
  if (typeof input !== "object" || input === null || Array.isArray(input)) return undefined;
  const p = input as Record<string, unknown>;
  const assetId = p.asset_id;
  const timestamp = p.timestamp;
  const items = p.readings;
  if (typeof assetId !== "string" || (assetId !== lastAssetId && !UUID.test(assetId))) return undefined;
  if (typeof timestamp === "string") {
    if (!DATE_TIME.test(timestamp)) return undefined;
  } else if (timestamp !== undefined || !absent(p, "timestamp")) {
    return undefined;
  }
  if (!Array.isArray(items) || items.length === 0) return undefined;
  const readings: TelemetryReadingBody[] = new Array(items.length);
  for (let i = 0; i < items.length; i++) {
    const reading = parseReading(items[i]);
    if (reading === undefined) return undefined;
    readings[i] = reading;
  }
  if (hasRepeatedVariable(readings)) return undefined;
  return timestamp === undefined
    ? { asset_id: assetId, readings }
    : { asset_id: assetId, timestamp, readings };
}

/** POST /api/telemetry: telemetryPayloadSchema's output, or undefined to ask zod. */
export function fastParseTelemetryPayload(input: unknown): TelemetryPayloadBody | undefined {
  return parsePayload(input);
}

/** POST /api/telemetry/batch: telemetryBatchSchema's output, or undefined to ask zod. */
export function fastParseTelemetryBatch(input: unknown): TelemetryBatchBody | undefined {
  if (typeof input !== "object" || input === null || Array.isArray(input)) return undefined;
  const list = (input as Record<string, unknown>).items;
  if (!Array.isArray(list) || list.length === 0) return undefined;
  const items: TelemetryPayloadBody[] = new Array(list.length);
  let lastAssetId: string | undefined;
  for (let i = 0; i < list.length; i++) {
    const payload = parsePayload(list[i], lastAssetId);
    if (payload === undefined) return undefined;
    items[i] = payload;
    lastAssetId = payload.asset_id;
  }
  return { items };
}
