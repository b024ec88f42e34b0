import type { Statement } from "better-sqlite3";
import type { Sqlite } from "../client.ts";

/** Rows per multi-row INSERT; the remainder uses the smaller sizes. */
export const INSERT_CHUNKS = [128, 32, 8, 1] as const;

/** Multi-row INSERT statements of `(series_id, ts, value)` rows into `table`, by row count. */
export function appendStatements(
  sqlite: Sqlite,
  table: "telemetry_raw" | "telemetry_inbox",
  conflict: "" | " ON CONFLICT DO NOTHING" = "",
): ReadonlyMap<number, Statement<unknown[]>> {
  const statements = new Map<number, Statement<unknown[]>>();
  for (const rows of INSERT_CHUNKS) {
    statements.set(
      rows,
      sqlite.prepare(
        `INSERT INTO ${table} (series_id, ts, value) VALUES ${Array(rows).fill("(?, ?, ?)").join(", ")}${conflict}`,
      ),
    );
  }
  return statements;
}

/**
 * Buffers `(series, ts, value)` rows and inserts them with the largest multi-row statements that
 * fit: one statement per 128 rows instead of one per row (~1 µs a row saved, measured).
 */
export class ChunkedAppend {
  readonly #statements: ReadonlyMap<number, Statement<unknown[]>>;
  readonly #args = new Map(INSERT_CHUNKS.map((size) => [size, new Array<number>(size * 3).fill(0)]));
  /** Pending rows, flat: series, ts, value, series, … */
  readonly #pending: number[] = [];
  #rows = 0;

  constructor(statements: ReadonlyMap<number, Statement<unknown[]>>) {
    this.#statements = statements;
  }

  /** Rows inserted so far. */
  get rows(): number {
    return this.#rows;
  }

  push(series: number, ts: number, value: number): void {
    const pending = this.#pending;
    pending.push(series, ts, value);
    if (pending.length === 3 * INSERT_CHUNKS[0]) this.flush();
  }

  /** Inserts every pending row. */
  flush(): void {
    const pending = this.#pending;
    let offset = 0;
    for (const size of INSERT_CHUNKS) {
      const statement = this.#statements.get(size);
      const args = this.#args.get(size);
      if (!statement || !args) continue;
      while (pending.length - offset >= 3 * size) {
        for (let k = 0; k < 3 * size; k++) args[k] = pending[offset + k] ?? 0;
        statement.run(...args);
        offset += 3 * size;
        this.#rows += size;
      }
    }
    pending.length = 0;
  }
}
