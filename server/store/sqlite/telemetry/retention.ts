import type { Statement } from "better-sqlite3";
import type { Sqlite } from "../client.ts";
import { PackedRetention } from "./packed-retention.ts";

/** Rows deleted per statement: short write transactions, so ingest keeps flowing between them. */
export const RETENTION_CHUNK_ROWS = 5_000;

/**
 * Deletes raw readings older than `cutoffMs`, series by series, raw rows and packed blocks alike:
 * at most RETENTION_CHUNK_ROWS rows per statement, whole blocks that end before the cutoff, and
 * the older part of a block that spans it, yielding to the event loop between statements. Rollups
 * are kept: history beyond the raw retention is served from them. Returns the readings deleted.
 */
export async function deleteExpiredRaw(
  sqlite: Sqlite,
  cutoffMs: number,
  shouldStop: () => boolean = () => false,
): Promise<number> {
  const seriesIds = sqlite.prepare<[], number>("SELECT id FROM telemetry_series ORDER BY id").pluck().all();
  // Deletes the rows before the chunk's last ts, or before the cutoff if that comes first.
  const deleteChunk: Statement<[number, number, number, number, number]> = sqlite.prepare(
    `DELETE FROM telemetry_raw WHERE series_id = ? AND ts < ? AND ts < coalesce(
       (SELECT ts FROM telemetry_raw WHERE series_id = ? ORDER BY ts LIMIT 1 OFFSET ?), ?)`,
  );
  const packed = new PackedRetention(sqlite);
  const pause = () => new Promise((resolve) => setImmediate(resolve));
  let deleted = 0;
  let statements = 0;
  for (const id of seriesIds) {
    for (;;) {
      if (shouldStop()) return deleted;
      const changes = deleteChunk.run(id, cutoffMs, id, RETENTION_CHUNK_ROWS, cutoffMs).changes;
      deleted += changes;
      statements++;
      if (changes > 0 || statements % 200 === 0) await pause();
      if (changes < RETENTION_CHUNK_ROWS) break;
    }
    for (;;) {
      if (shouldStop()) return deleted;
      const { points, more } = packed.deleteOlderBlocks(id, cutoffMs);
      deleted += points;
      if (points > 0) await pause();
      if (!more) break;
    }
    const trimmed = packed.trimSpanningBlock(id, cutoffMs);
    deleted += trimmed;
    if (trimmed > 0) await pause();
  }
  return deleted;
}
