import type { CaudalServer } from "../../server/server.ts";
import type { Sqlite } from "../../server/store/sqlite/client.ts";
import { SqliteStore } from "../../server/store/sqlite/sqlite-store.ts";
import { decodeBlock } from "../../server/store/telemetry/codec/block.ts";
import { tableProbe } from "../../server/testing/table-probe.ts";

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

/** storedPoints of a running server, on whichever engine it runs (PostgreSQL has no inbox). */
export async function storedPointsIn(
  server: CaudalServer,
  from = Number.MIN_SAFE_INTEGER,
  before = Number.MAX_SAFE_INTEGER,
): Promise<number> {
  if (server.store instanceof SqliteStore) return storedPoints(server.store.connection, from, before);
  const probe = tableProbe(server);
  // Raw rows and whole blocks in one statement (one snapshot): packing moves rows from one to the
  // other while the server runs, and two statements could count a moved stretch twice.
  const [whole] = await probe.query<{ n: number }>(
    `SELECT (SELECT count(*) FROM telemetry_raw WHERE ts >= ? AND ts < ?)
          + (SELECT coalesce(sum(count), 0) FROM telemetry_packed WHERE first_ts >= ? AND last_ts < ?) AS n`,
    [from, before, from, before],
  );
  // Blocks straddling a bound, point by point (none when the range is unbounded).
  const straddling = await probe.query<{ data: Uint8Array }>(
    `SELECT data FROM telemetry_packed
      WHERE first_ts < ? AND last_ts >= ? AND NOT (first_ts >= ? AND last_ts < ?)`,
    [before, from, from, before],
  );
  let partial = 0;
  for (const b of straddling)
    partial += decodeBlock(b.data).ts.filter((ts) => ts >= from && ts < before).length;
  return (whole?.n ?? 0) + partial;
}

/** Bytes the telemetry tables take (points: raw rows, SQLite's inbox, packed blocks; the rollups). */
export type TelemetryBytes = { points: number; rollup5m: number; rollup1h: number };

/**
 * On SQLite, the pages of each table after a WAL checkpoint (dbstat); on PostgreSQL, each table's
 * relation size with its indexes and TOAST (pg_total_relation_size), day partitions summed.
 */
export async function telemetryBytes(server: CaudalServer): Promise<TelemetryBytes> {
  if (server.store instanceof SqliteStore) {
    const db = server.store.connection;
    db.pragma("wal_checkpoint(TRUNCATE)");
    const size = (name: string) =>
      db
        .prepare<[string], number>("SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE name = ?")
        .pluck()
        .get(name) ?? 0;
    return {
      points: size("telemetry_raw") + size("telemetry_inbox") + size("telemetry_packed"),
      rollup5m: size("telemetry_rollup_5m"),
      rollup1h: size("telemetry_rollup_1h"),
    };
  }
  const probe = tableProbe(server);
  const [row] = await probe.query<{ raw: number; packed: number; r5: number; r1: number }>(
    `SELECT (SELECT coalesce(sum(pg_total_relation_size(i.inhrelid)), 0) FROM pg_inherits i
              WHERE i.inhparent = 'telemetry_raw'::regclass) AS raw,
            pg_total_relation_size('telemetry_packed') AS packed,
            pg_total_relation_size('telemetry_rollup_5m') AS r5,
            pg_total_relation_size('telemetry_rollup_1h') AS r1`,
  );
  return { points: (row?.raw ?? 0) + (row?.packed ?? 0), rollup5m: row?.r5 ?? 0, rollup1h: row?.r1 ?? 0 };
}
