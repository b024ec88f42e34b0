import { createHash } from "node:crypto";
import type { Sqlite } from "../store/sqlite/client.ts";
import { decodeBlock } from "../store/telemetry/codec/block.ts";

/** Per table: its row count and a hash of every row. */
export type Snapshot = Map<string, { rows: number; hash: string }>;

/**
 * Derived tables a background job maintains from telemetry_raw (the 5-minute and hourly rollups):
 * they change on their own schedule, not because of the request being watched.
 */
const DERIVED = new Set(["telemetry_rollup_5m", "telemetry_rollup_1h"]);

/**
 * Stored telemetry points live in the inbox, in telemetry_raw or, once the packing job has moved
 * them, in telemetry_packed: the three are compared as one table of points (under telemetry_raw's
 * name), so that the inbox's moves and packing, which move points without changing any, are not
 * taken for a change.
 */
const POINTS = "telemetry_raw";
const INBOX = "telemetry_inbox";
const PACKED = "telemetry_packed";

function pointRows(sqlite: Sqlite): [number, number, number][] {
  const rows = sqlite
    .prepare<[], [number, number, number]>(
      `SELECT series_id, ts, value FROM ${POINTS} UNION ALL SELECT series_id, ts, value FROM ${INBOX}`,
    )
    .raw()
    .all();
  for (const [series, data] of sqlite
    .prepare<[], [number, Uint8Array]>(`SELECT series_id, data FROM ${PACKED}`)
    .raw()
    .iterate()) {
    const { ts, values } = decodeBlock(data);
    for (let i = 0; i < ts.length; i++) rows.push([series, ts[i] ?? 0, values[i] ?? 0]);
  }
  return rows.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
}

function tables(sqlite: Sqlite): string[] {
  const rows = sqlite
    .prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '__drizzle%' ORDER BY name",
    )
    .all() as { name: string }[];
  return rows.map((r) => r.name).filter((name) => !DERIVED.has(name) && name !== PACKED && name !== INBOX);
}

export function snapshot(sqlite: Sqlite): Snapshot {
  const out: Snapshot = new Map();
  for (const table of tables(sqlite)) {
    const hash = createHash("sha256");
    let rows = 0;
    // Row order is irrelevant to "unchanged", but a stable order keeps the hash stable.
    const all =
      table === POINTS
        ? pointRows(sqlite)
        : sqlite.prepare(`SELECT * FROM "${table}" ORDER BY 1`).raw().iterate();
    for (const row of all) {
      hash.update(
        JSON.stringify(row, (_k, v: unknown) =>
          Buffer.isBuffer(v) ? v.toString("hex") : typeof v === "bigint" ? String(v) : v,
        ),
      );
      rows++;
    }
    out.set(table, { rows, hash: hash.digest("hex") });
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
 * Watches the database for changes between two points. sqlite's total_changes() counts every row
 * written on the server's connection (also by a statement later rolled back), so an unchanged count
 * proves nothing was written and the full comparison runs only when it moved.
 */
export class ChangeWatch {
  readonly #sqlite: Sqlite;
  #changes = -1;
  #state: Snapshot = new Map();

  constructor(sqlite: Sqlite) {
    this.#sqlite = sqlite;
  }

  #totalChanges(): number {
    return (this.#sqlite.prepare("SELECT total_changes() AS n").get() as { n: number }).n;
  }

  /** Marks the current state as the one to compare with. */
  mark(): void {
    const changes = this.#totalChanges();
    if (changes === this.#changes) return;
    this.#state = snapshot(this.#sqlite);
    this.#changes = changes;
  }

  /** What changed since mark(); empty when nothing did. */
  changed(): string[] {
    const changes = this.#totalChanges();
    if (changes === this.#changes) return [];
    const after = snapshot(this.#sqlite);
    const diff = differences(this.#state, after);
    this.#state = after;
    this.#changes = changes;
    return diff;
  }
}
