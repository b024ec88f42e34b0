import { type ZodSafeParseResult, z } from "zod";
import { alarmTransitionSchema, type Payload, payloads } from "../../shared/mqtt/topics.ts";
import { readingInRange, withoutNul } from "../../shared/telemetry-limits.ts";

type Telemetry = Payload<"telemetry">;
type Series = Telemetry["series"][number];
type Point = Series["points"][number];

/** The exact pattern z.uuid() applies (RFC 9562), taken from zod rather than copied. */
const UUID = z.regexes.uuid();
const alarmList = z.array(alarmTransitionSchema);

/**
 * payloads.telemetry.safeParse for the hot topic. A batch carries thousands of points and zod
 * validates each tuple through its generic machinery (about 0.8 µs a point, measured: the largest
 * share of broker-side CPU per batch after the commit itself), so well-formed batches take a
 * hand-written path instead.
 *
 * Exactness: the fast path accepts only what the schema accepts, with each check as strict as
 * zod's or stricter (string lengths in UTF-16 units, integers within the safe range, finite
 * numbers), and returns what zod would return (unknown keys dropped, `alarms` defaulted to []).
 * Anything it does not accept goes to zod itself, which then decides, with zod's own error.
 * Alarm transitions, a few per batch at most, are always validated by zod.
 */
export function parseTelemetryPayload(json: unknown): ZodSafeParseResult<Telemetry> {
  const data = fastTelemetry(json);
  return data ? { success: true, data } : payloads.telemetry.safeParse(json);
}

function fastTelemetry(v: unknown): Telemetry | undefined {
  if (!isRecord(v)) return undefined;
  const { agent_id, seq, lane, series, alarms } = v;
  if (typeof agent_id !== "string" || !UUID.test(agent_id)) return undefined;
  if (typeof seq !== "number" || !Number.isSafeInteger(seq) || seq <= 0) return undefined;
  if (lane !== "live" && lane !== "backlog") return undefined;
  if (!Array.isArray(series)) return undefined;
  const out: Series[] = [];
  // A batch's series mostly share one asset: its id is checked once (the pattern test costs ~0.2 µs).
  let checkedAsset: string | undefined;
  for (const s of series) {
    const parsed = fastSeries(s, checkedAsset);
    if (!parsed) return undefined;
    out.push(parsed);
    checkedAsset = parsed.asset_id;
  }
  let transitions: Telemetry["alarms"] = [];
  // An empty list is what zod would return for it, without the trip through zod.
  if (alarms !== undefined && !(Array.isArray(alarms) && alarms.length === 0)) {
    const parsed = alarmList.safeParse(alarms);
    if (!parsed.success) return undefined;
    transitions = parsed.data;
  }
  // The schema's refine: a batch carries points or alarms.
  if (out.length === 0 && transitions.length === 0) return undefined;
  return { agent_id, seq, lane, series: out, alarms: transitions };
}

/** One series; `checkedAsset` is an asset id already known to match the pattern. */
function fastSeries(s: unknown, checkedAsset: string | undefined): Series | undefined {
  if (!isRecord(s)) return undefined;
  const { asset_id, variable, unit, points } = s;
  if (typeof asset_id !== "string" || (asset_id !== checkedAsset && !UUID.test(asset_id))) return undefined;
  if (typeof variable !== "string" || variable.length < 1 || variable.length > 128) return undefined;
  if (!withoutNul(variable)) return undefined;
  if (
    unit !== undefined &&
    unit !== null &&
    (typeof unit !== "string" || unit.length > 32 || !withoutNul(unit))
  ) {
    return undefined;
  }
  if (!Array.isArray(points) || points.length === 0 || !points.every(isPoint)) return undefined;
  // The parsed object itself when it has no other keys (as an agent sends it): what zod would return.
  if (keyCount(s) === (unit === undefined ? 3 : 4)) return s as Series;
  return unit === undefined ? { asset_id, variable, points } : { asset_id, variable, unit, points };
}

/** Own enumerable keys, counted without building their array. */
function keyCount(o: object): number {
  let n = 0;
  for (const k in o) if (Object.hasOwn(o, k)) n++;
  return n;
}

/** [epoch ms, value]: a non-negative safe integer and a finite number, nothing more. */
function isPoint(p: unknown): p is Point {
  if (!Array.isArray(p) || p.length !== 2) return false;
  // Indexed, not destructured: destructuring took an iterator object per point (heap profile).
  const ts: unknown = p[0];
  const value: unknown = p[1];
  return (
    typeof ts === "number" &&
    Number.isSafeInteger(ts) &&
    ts >= 0 &&
    typeof value === "number" &&
    readingInRange(value)
  );
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
