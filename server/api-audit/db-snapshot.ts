import { createHash } from "node:crypto";
import { decodeBlock } from "../store/telemetry/codec/block.ts";
import type { Row, TableProbe } from "../testing/table-probe.ts";

/** Per table: its row count and a hash of every row. */
export type Snapshot = Map<string, { rows: number; hash: string }>;

/**
 * Derived tables a background job maintains from telemetry_raw (the 5-minute and hourly rollups):
 * they change on their own schedule, not because of the request being watched.
 */
const DERIVED = new Set(["telemetry_rollup_5m", "telemetry_rollup_1h"]);
/** Columns that job moves too: PostgreSQL's roll-up watermark of each series. */
const DERIVED_COLUMNS: Readonly<Record<string, readonly string[]>> = { telemetry_series: ["rolled_to"] };

/**
 * Stored telemetry points live in the inbox (SQLite's), in telemetry_raw or, once the packing job
 * has moved them, in telemetry_packed: the three are compared as one table of points (under
 * telemetry_raw's name), so that the inbox's moves and packing, which move points without changing
 * any, are not taken for a change.
 */
const POINTS = "telemetry_raw";
const INBOX = "telemetry_inbox";
const PACKED = "telemetry_packed";

async function pointRows(probe: TableProbe): Promise<unknown[]> {
  const rows = (
    await probe.query<{ series_id: number; ts: number; value: number }>(
      `SELECT series_id, ts, value FROM ${POINTS} UNION ALL SELECT series_id, ts, value FROM ${INBOX}`,
    )
  ).map((r): [number, number, number] => [r.series_id, r.ts, r.value]);
  for (const { series_id, data } of await probe.query<{ series_id: number; data: Uint8Array }>(
    `SELECT series_id, data FROM ${PACKED}`,
  )) {
    const { ts, values } = decodeBlock(data);
    for (let i = 0; i < ts.length; i++) rows.push([series_id, ts[i] ?? 0, values[i] ?? 0]);
  }
  return rows;
}

async function tables(probe: TableProbe): Promise<string[]> {
  return (await probe.tables()).filter((name) => !DERIVED.has(name) && name !== PACKED && name !== INBOX);
}

const rowText = (row: unknown) =>
  JSON.stringify(row, (_k, v: unknown) =>
    Buffer.isBuffer(v) ? v.toString("hex") : typeof v === "bigint" ? String(v) : v,
  );

export async function snapshot(probe: TableProbe): Promise<Snapshot> {
  const out: Snapshot = new Map();
  for (const table of await tables(probe)) {
    const all = table === POINTS ? await pointRows(probe) : await probe.query(`SELECT * FROM "${table}"`);
    for (const column of DERIVED_COLUMNS[table] ?? []) for (const row of all) delete (row as Row)[column];
    // Row order is irrelevant to "unchanged": sorted, the hash is stable whatever order the engine reads.
    const texts = all.map(rowText).sort();
    const hash = createHash("sha256");
    for (const text of texts) hash.update(text);
    out.set(table, { rows: texts.length, hash: hash.digest("hex") });
  }
  return out;
}

/** "table: 3 → 4 rows" / "table: rows changed" for every table that differs. */
export function differences(before: Snapshot, after: Snapshot): string[] {
  const out: string[] = [];
  for (const [table, a] of after) {
    const b = before.get(table);
    if (!b) out.push(`${table}: new table`);
    else if (b.rows !== a.rows) out.push(`${table}: ${b.rows} → ${a.rows} rows`);
    else if (b.hash !== a.hash) out.push(`${table}: rows changed`);
  }
  return out;
}

/**
 * A value that moves whenever anything may have been written, so that an unmoved one proves
 * nothing was. SQLite: total_changes() counts every row written on the server's connection (also
 * by a statement later rolled back). PostgreSQL: the WAL insert position, which every data change
 * of any session advances (also one rolled back, a vacuum, a checkpoint: it moves more often than
 * the data changes, never less, and a moved one only costs the full comparison).
 */
async function writeMark(probe: TableProbe): Promise<string> {
  const sql =
    probe.backend === "sqlite"
      ? "SELECT total_changes() AS mark"
      : "SELECT pg_current_wal_insert_lsn()::text AS mark";
  const [row] = await probe.query<{ mark: unknown }>(sql);
  return String(row?.mark);
}

/**
 * Watches the database for changes between two points: the full comparison runs only when the
 * write mark (writeMark) moved.
 */
export class ChangeWatch {
  readonly #probe: TableProbe;
  #mark = "";
  #state: Snapshot = new Map();

  constructor(probe: TableProbe) {
    this.#probe = probe;
  }

  /** Marks the current state as the one to compare with. */
  async mark(): Promise<void> {
    const mark = await writeMark(this.#probe);
    if (mark === this.#mark) return;
    this.#state = await snapshot(this.#probe);
    this.#mark = mark;
  }

  /** What changed since mark(); empty when nothing did. */
  async changed(): Promise<string[]> {
    const mark = await writeMark(this.#probe);
    if (mark === this.#mark) return [];
    const after = await snapshot(this.#probe);
    const diff = differences(this.#state, after);
    this.#state = after;
    this.#mark = mark;
    return diff;
  }
}
