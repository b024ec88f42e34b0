import type { Sqlite } from "../../server/store/sqlite/client.ts";
import { decodeBlock } from "../../server/store/telemetry/codec/block.ts";

/**
 * Telemetry points stored with from ≤ ts < before: raw rows, inbox rows and the points of packed
 * blocks (a block straddling a bound is decoded and counted point by point).
 */
export function storedPoints(
  sqlite: Sqlite,
  from = Number.MIN_SAFE_INTEGER,
  before = Number.MAX_SAFE_INTEGER,
): number {
  const raw = sqlite
    .prepare<[number, number, number, number], number>(
      `SELECT (SELECT count(*) FROM telemetry_raw WHERE ts >= ? AND ts < ?)
            + (SELECT count(*) FROM telemetry_inbox WHERE ts >= ? AND ts < ?)`,
    )
    .pluck()
    .get(from, before, from, before);
  let packed = 0;
  const blocks = sqlite
    .prepare<[number, number], { first_ts: number; last_ts: number; count: number; data: Uint8Array }>(
      "SELECT first_ts, last_ts, count, data FROM telemetry_packed WHERE first_ts < ? AND last_ts >= ?",
    )
    .iterate(before, from);
  for (const b of blocks) {
    if (b.first_ts >= from && b.last_ts < before) packed += b.count;
    else packed += decodeBlock(b.data).ts.filter((ts) => ts >= from && ts < before).length;
  }
  return (raw ?? 0) + packed;
}
