import type { Sqlite } from "./client.ts";

/** What this process knows of one agent's committed batches. */
type Stream = {
  readonly projectId: string;
  readonly agentId: string;
  /** No batch above this seq was ever committed: one above it is new without a read. */
  top: number;
  /** The rows this process wrote last, last_seq → seq, so a run that starts right after one extends it. */
  readonly ends: Map<number, number>;
};

type Statements = ReturnType<typeof prepare>;
type Run = { first: number; last: number; points: number; at: number };
type Claimed = { stream: Stream; batches: Map<number, { points: number; at: number }> };

/** Rows remembered per agent for extending: its live run, its backlog run, a few more after a gap. */
const MAX_ENDS = 8;

/**
 * The SQLite store's agent_batches: which of each agent's batches are committed, as runs of
 * consecutive seqs (a row holds seq to last_seq), so that a commit of a few hundred batches writes
 * about one row an agent, not one a batch. The insert per batch was 5.7% of the server's main
 * thread under MQTT ingest, and leaving it out altogether was +12% messages/s (issue 13).
 *
 * A claim answers from memory when it can: a seq above every seq the agent ever had committed is
 * new. A seq at or below it (a backlog batch, a batch sent again) is looked up: the row with the
 * greatest start at or below it, whose run covers it or not (runs never overlap: a run holds only
 * seqs that were new). Memory is dropped whenever another connection has committed (PRAGMA
 * data_version), and is only ever behind the database: what this process claims reaches it when
 * the transaction commits, never when it rolls back.
 *
 * The runs are written just before COMMIT (SqliteStore calls flush), so a claim commits or rolls back
 * with the transaction that made it, as the single insert did. Nothing may claim inside a savepoint
 * that can roll back on its own.
 */
export class BatchLedger {
  readonly #sqlite: Sqlite;
  readonly #streams = new Map<string, Stream>();
  /** Claimed in the open transaction (or the autocommit call), by stream. */
  readonly #pending = new Map<string, Claimed>();
  /** Changes to #streams the flushed runs make, applied once they commit. */
  #staged: (() => void)[] = [];
  #dataVersion: number | undefined;
  #checked = false;
  #statements: Statements | undefined;

  constructor(sqlite: Sqlite) {
    this.#sqlite = sqlite;
  }

  /** True when the batch is new (its record then commits with the transaction), false when committed before. */
  claim(projectId: string, agentId: string, seq: number, points: number, receivedAt: number): boolean {
    const s = this.#prepared();
    if (!this.#checked) this.#noticeOtherWriters(s);
    const key = `${projectId}/${agentId}`;
    let claimed = this.#pending.get(key);
    if (claimed?.batches.has(seq)) return false;
    const stream = claimed?.stream ?? this.#streams.get(key) ?? this.#load(s, key, projectId, agentId);
    if (seq <= stream.top) {
      const row = s.covering.get(projectId, agentId, seq);
      if (row && row.last >= seq) return false;
      // A backlog batch right after a run: its run extends that row.
      if (row && row.last === seq - 1) remember(stream, row.last, row.first);
    }
    if (!claimed) {
      claimed = { stream, batches: new Map() };
      this.#pending.set(key, claimed);
    }
    claimed.batches.set(seq, { points, at: receivedAt });
    // #checked: a transaction is open (asked once a transaction: better-sqlite3 asks SQLite each time).
    if (!this.#checked) {
      // No transaction to commit with: the record is written now, on its own.
      this.flush();
      this.committed();
    }
    return true;
  }

  /** Writes the runs claimed in the open transaction; SqliteStore calls it just before COMMIT. */
  flush(): void {
    if (this.#pending.size === 0) return;
    const s = this.#prepared();
    for (const { stream, batches } of this.#pending.values()) {
      for (const run of runsOf(batches)) this.#write(s, stream, run);
    }
    this.#pending.clear();
  }

  /** The transaction committed: what it wrote is now known. */
  committed(): void {
    for (const apply of this.#staged) apply();
    this.#staged = [];
    this.#pending.clear();
    this.#checked = false;
  }

  /** The transaction rolled back: its claims never happened. */
  rolledBack(): void {
    this.#staged = [];
    this.#pending.clear();
    this.#checked = false;
  }

  #prepared(): Statements {
    this.#statements ??= prepare(this.#sqlite);
    return this.#statements;
  }

  #write(s: Statements, stream: Stream, run: Run): void {
    const { projectId, agentId } = stream;
    const start = stream.ends.get(run.first - 1);
    const extended =
      start !== undefined &&
      s.extend.run(run.last, run.points, run.at, projectId, agentId, start, run.first - 1).changes === 1;
    if (!extended) s.insert.run(projectId, agentId, run.first, run.last, run.points, run.at);
    const rowStart = extended ? start : run.first;
    this.#staged.push(() => {
      if (extended) stream.ends.delete(run.first - 1);
      remember(stream, run.last, rowStart);
      if (run.last > stream.top) stream.top = run.last;
    });
  }

  #load(s: Statements, key: string, projectId: string, agentId: string): Stream {
    // Its newest row, which its next batches extend.
    const newest = s.newest.get(projectId, agentId);
    const stream: Stream = { projectId, agentId, top: newest?.last ?? 0, ends: new Map() };
    if (newest) stream.ends.set(newest.last, newest.first);
    this.#streams.set(key, stream);
    return stream;
  }

  /** Another connection's commit may have recorded batches this process does not know of. */
  #noticeOtherWriters(s: Statements): void {
    const version = s.dataVersion.get();
    if (this.#dataVersion !== undefined && version !== this.#dataVersion) this.#streams.clear();
    this.#dataVersion = version;
    this.#checked = this.#sqlite.inTransaction;
  }
}

/** A committed row's end, for the next run to extend; the oldest remembered goes past MAX_ENDS. */
function remember(stream: Stream, last: number, first: number): void {
  stream.ends.delete(last);
  stream.ends.set(last, first);
  if (stream.ends.size > MAX_ENDS) {
    const oldest = stream.ends.keys().next().value;
    if (oldest !== undefined) stream.ends.delete(oldest);
  }
}

/** Claimed batches as maximal runs of consecutive seqs, ascending. */
function runsOf(batches: Map<number, { points: number; at: number }>): Run[] {
  const runs: Run[] = [];
  for (const seq of [...batches.keys()].sort((a, b) => a - b)) {
    const batch = batches.get(seq);
    if (!batch) continue;
    const run = runs.at(-1);
    if (run && seq === run.last + 1) {
      run.last = seq;
      run.points += batch.points;
      run.at = Math.max(run.at, batch.at);
    } else {
      runs.push({ first: seq, last: seq, points: batch.points, at: batch.at });
    }
  }
  return runs;
}

// received_at in epoch ms, as the schema's instant() column stores it. Prepared once, as the
// telemetry hot path does (DESIGN.md, Storage).
function prepare(sqlite: Sqlite) {
  return {
    dataVersion: sqlite.prepare<[], number>("PRAGMA data_version").pluck(),
    // Runs never overlap, so the row with the greatest start also has the greatest end.
    newest: sqlite.prepare<[string, string], { first: number; last: number }>(
      "SELECT seq AS first, last_seq AS last FROM agent_batches WHERE project_id = ? AND agent_id = ? ORDER BY seq DESC LIMIT 1",
    ),
    covering: sqlite.prepare<[string, string, number], { first: number; last: number }>(
      `SELECT seq AS first, last_seq AS last FROM agent_batches WHERE project_id = ? AND agent_id = ? AND seq <= ?
       ORDER BY seq DESC LIMIT 1`,
    ),
    extend: sqlite.prepare<[number, number, number, string, string, number, number]>(
      `UPDATE agent_batches SET last_seq = ?, points = points + ?, received_at = ?
       WHERE project_id = ? AND agent_id = ? AND seq = ? AND last_seq = ?`,
    ),
    // A clash cannot happen (the run's seqs were all new); were it to, the record is left as it is.
    insert: sqlite.prepare<[string, string, number, number, number, number]>(
      `INSERT INTO agent_batches (project_id, agent_id, seq, last_seq, points, received_at)
       VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
    ),
  };
}
