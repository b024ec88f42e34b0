/**
 * The largest magnitude a telemetry value may have. Rollups and daily reports sum readings: with
 * values bounded at 1e15 a sum stays finite and exact enough for any field quantity (totalisers
 * included), where two readings of 1e308 would overflow a double to Infinity.
 */
export const MAX_READING_MAGNITUDE = 1e15;

export function readingInRange(value: number): boolean {
  return Number.isFinite(value) && Math.abs(value) <= MAX_READING_MAGNITUDE;
}

/**
 * Variable names and units are text that both storage engines hold: PostgreSQL's text cannot
 * hold the NUL character (U+0000), so it is refused on every path in (HTTP and MQTT alike).
 */
export const NO_NUL_MESSAGE = "must not contain the NUL character (U+0000)";

export function withoutNul(text: string): boolean {
  return !text.includes("\0");
}
