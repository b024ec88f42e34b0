import type { DatabaseSync, StatementSync } from "node:sqlite";
import type { Payload } from "../../shared/mqtt/topics.ts";

export type SeriesPoints = Payload<"telemetry">["series"][number];
export type AlarmTransition = NonNullable<Payload<"telemetry">["alarms"]>[number];

/** What one outbox row carries. */
export type BatchBody = { series: SeriesPoints[]; alarms: AlarmTransition[] };

export type StoredBatch = {
  seq: number;
  createdAt: number;
  points: number;
  oldestTs: number;
  body: BatchBody;
};

export type DropNotice = { seq: number; points: number; bytes: number };

/** A batch stays open for more points up to this size while it has never been sent. */
export const MAX_BATCH_POINTS = 5_000;
/**
 * …and up to this share of buffer_max_mb, so the bound holds with merging and dropping the
 * oldest batch loses at most about a quarter of the buffer.
 */
export const MAX_BATCH_SHARE = 0.25;

/**
 * The store-and-forward queue: every reading is committed here before anything is sent, and a
 * batch is deleted only when the server acknowledges it (after its own commit). Bounded by
 * `maxBytes`: the oldest batches go first, counted and reported — never silently.
 */
export class Outbox {
  readonly #db: DatabaseSync;
  readonly #maxBytes: number;
  readonly #onDrop: (notice: DropNotice) => void;
  #totalBytes = 0;
  #stmts!: {
    nextSeq: StatementSync;
    setNextSeq: StatementSync;
    insert: StatementSync;
    lastOpen: StatementSync;
    update: StatementSync;
    seal: StatementSync;
    closeNewest: StatementSync;
    remove: StatementSync;
    oldest: StatementSync;
    after: StatementSync;
    get: StatementSync;
    text: StatementSync;
    stats: StatementSync;
    bump: StatementSync;
    counter: StatementSync;
  };

  constructor(db: DatabaseSync, maxBytes: number, onDrop: (notice: DropNotice) => void) {
    this.#db = db;
    this.#maxBytes = maxBytes;
    this.#onDrop = onDrop;
  }

  open(): void {
    const db = this.#db;
    this.#stmts = {
      nextSeq: db.prepare("SELECT value FROM meta WHERE key = 'next_seq'"),
      setNextSeq: db.prepare(
        "INSERT INTO meta (key, value) VALUES ('next_seq', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
      ),
      insert: db.prepare(
        "INSERT INTO outbox (seq, created_at, open, points, bytes, oldest_ts, body) VALUES (?, ?, 1, ?, ?, ?, ?)",
      ),
      lastOpen: db.prepare(
        "SELECT seq, points, bytes, oldest_ts, body FROM outbox WHERE open = 1 ORDER BY seq DESC LIMIT 1",
      ),
      update: db.prepare("UPDATE outbox SET points = ?, bytes = ?, oldest_ts = ?, body = ? WHERE seq = ?"),
      seal: db.prepare("UPDATE outbox SET open = 0 WHERE seq = ? AND open = 1"),
      closeNewest: db.prepare(
        "UPDATE outbox SET open = 0 WHERE seq = (SELECT max(seq) FROM outbox) AND open = 1",
      ),
      remove: db.prepare("DELETE FROM outbox WHERE seq = ? RETURNING bytes"),
      oldest: db.prepare("SELECT seq, bytes, points FROM outbox ORDER BY seq ASC LIMIT 1"),
      after: db.prepare("SELECT seq FROM outbox WHERE seq > ? ORDER BY seq ASC LIMIT ?"),
      get: db.prepare("SELECT seq, created_at, points, oldest_ts, body FROM outbox WHERE seq = ?"),
      text: db.prepare("SELECT body FROM outbox WHERE seq = ?"),
      stats: db.prepare(
        "SELECT COUNT(*) AS batches, COALESCE(SUM(points), 0) AS points, COALESCE(SUM(bytes), 0) AS bytes, MIN(oldest_ts) AS oldest FROM outbox",
      ),
      bump: db.prepare(
        "INSERT INTO counters (name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = value + excluded.value",
      ),
      counter: db.prepare("SELECT value FROM counters WHERE name = ?"),
    };
    this.#totalBytes = Number((this.#stmts.stats.get() as { bytes: number }).bytes);
  }

  /**
   * Commits points (and alarm transitions) to the queue. While `mergeIntoOpen` is true (the link
   * is down), points join the newest never-sent batch up to MAX_BATCH_POINTS (and MAX_BATCH_SHARE
   * of the bound), so a long outage drains in large batches. Returns the seq that holds them.
   */
  append(body: BatchBody, now: number, mergeIntoOpen: boolean): number {
    const points = body.series.reduce((n, s) => n + s.points.length, 0);
    if (points === 0 && body.alarms.length === 0) throw new Error("empty batch");
    const oldest = Math.min(...body.series.map((s) => s.points[0]?.[0] ?? now), now);
    this.#db.exec("BEGIN IMMEDIATE");
    try {
      let seq: number;
      const last = mergeIntoOpen
        ? (this.#stmts.lastOpen.get() as
            | { seq: number; points: number; bytes: number; oldest_ts: number; body: string }
            | undefined)
        : undefined;
      const merged =
        last && last.points + points <= MAX_BATCH_POINTS
          ? JSON.stringify(mergeBodies(JSON.parse(last.body) as BatchBody, body))
          : undefined;
      const mergedBytes = merged === undefined ? 0 : Buffer.byteLength(merged);
      // The batch just written is never dropped, so an open batch may not outgrow its share of the bound.
      if (last && merged !== undefined && mergedBytes <= this.#maxBytes * MAX_BATCH_SHARE) {
        this.#stmts.update.run(
          last.points + points,
          mergedBytes,
          Math.min(last.oldest_ts, oldest),
          merged,
          last.seq,
        );
        this.#totalBytes += mergedBytes - last.bytes;
        seq = last.seq;
      } else {
        // Only the newest batch is ever left open. SQLite rewrites a whole record on UPDATE (a full
        // batch is ~140 KB), so sealing an older batch when it is sent would cost a large write and a
        // sync per backlog batch; closing it here, in the transaction that supersedes it, costs one.
        this.#stmts.closeNewest.run();
        seq = this.#takeSeq();
        const text = JSON.stringify(body);
        const bytes = Buffer.byteLength(text);
        this.#stmts.insert.run(seq, now, points, bytes, oldest, text);
        this.#totalBytes += bytes;
      }
      // Committed with the points: after any crash, stored_points is exactly what the queue took in.
      this.#stmts.bump.run("stored_points", points);
      const drops = this.#enforceBound(seq);
      this.#db.exec("COMMIT");
      for (const d of drops) this.#onDrop(d);
      return seq;
    } catch (err) {
      this.#db.exec("ROLLBACK");
      throw err;
    }
  }

  /** Marks a batch as sent: it takes no more points (its content is fixed from now on). */
  seal(seq: number): void {
    this.#stmts.seal.run(seq);
  }

  /** Deletes an acknowledged batch. Returns false when it was not there (already acked or dropped). */
  ack(seq: number): boolean {
    return this.ackMany([seq]) === 1;
  }

  /**
   * Deletes acknowledged batches in one transaction (one sync to disk for all of them). Returns how
   * many were there; the others were acknowledged or dropped before.
   */
  ackMany(seqs: readonly number[]): number {
    if (seqs.length === 0) return 0;
    let deleted = 0;
    let bytes = 0;
    this.#db.exec("BEGIN IMMEDIATE");
    try {
      for (const seq of seqs) {
        const row = this.#stmts.remove.get(seq) as { bytes: number } | undefined;
        if (!row) continue;
        deleted += 1;
        bytes += row.bytes;
      }
      this.#db.exec("COMMIT");
    } catch (err) {
      this.#db.exec("ROLLBACK");
      throw err;
    }
    this.#totalBytes -= bytes;
    return deleted;
  }

  /**
   * The stored JSON of a batch body, `{"series":[…],"alarms":[…]}`, exactly as append wrote it
   * (JSON.stringify of a BatchBody): the sync client sends it without decoding and re-encoding.
   */
  bodyText(seq: number): string | undefined {
    return (this.#stmts.text.get(seq) as { body: string } | undefined)?.body;
  }

  get(seq: number): StoredBatch | undefined {
    const row = this.#stmts.get.get(seq) as
      | { seq: number; created_at: number; points: number; oldest_ts: number; body: string }
      | undefined;
    if (!row) return undefined;
    return {
      seq: row.seq,
      createdAt: row.created_at,
      points: row.points,
      oldestTs: row.oldest_ts,
      body: JSON.parse(row.body) as BatchBody,
    };
  }

  /** Seqs of queued batches after `seq`, oldest first. */
  seqsAfter(seq: number, limit: number): number[] {
    return (this.#stmts.after.all(seq, limit) as { seq: number }[]).map((r) => r.seq);
  }

  stats(): {
    batches: number;
    points: number;
    bytes: number;
    oldestTs: number | null;
    storedPoints: number;
    droppedBatches: number;
    droppedPoints: number;
  } {
    const s = this.#stmts.stats.get() as {
      batches: number;
      points: number;
      bytes: number;
      oldest: number | null;
    };
    return {
      batches: Number(s.batches),
      points: Number(s.points),
      bytes: Number(s.bytes),
      oldestTs: s.oldest === null ? null : Number(s.oldest),
      storedPoints: this.#counter("stored_points"),
      droppedBatches: this.#counter("dropped_batches"),
      droppedPoints: this.#counter("dropped_points"),
    };
  }

  #counter(name: string): number {
    return Number((this.#stmts.counter.get(name) as { value: number } | undefined)?.value ?? 0);
  }

  #takeSeq(): number {
    const row = this.#stmts.nextSeq.get() as { value: string } | undefined;
    const seq = row ? Number(row.value) : 1;
    this.#stmts.setNextSeq.run(String(seq + 1));
    return seq;
  }

  /** Drops the oldest batches (never the one just written) until the queue fits. */
  #enforceBound(keep: number): DropNotice[] {
    const drops: DropNotice[] = [];
    while (this.#totalBytes > this.#maxBytes) {
      const oldest = this.#stmts.oldest.get() as { seq: number; bytes: number; points: number } | undefined;
      if (!oldest || oldest.seq === keep) break;
      this.#stmts.remove.get(oldest.seq);
      this.#totalBytes -= oldest.bytes;
      this.#stmts.bump.run("dropped_batches", 1);
      this.#stmts.bump.run("dropped_points", oldest.points);
      drops.push({ seq: oldest.seq, points: oldest.points, bytes: oldest.bytes });
    }
    return drops;
  }
}

function mergeBodies(a: BatchBody, b: BatchBody): BatchBody {
  const series = a.series.map((s) => ({ ...s, points: [...s.points] }));
  const index = new Map(series.map((s, i) => [`${s.asset_id}\u0000${s.variable}`, i]));
  for (const s of b.series) {
    const i = index.get(`${s.asset_id}\u0000${s.variable}`);
    const target = i === undefined ? undefined : series[i];
    if (target) target.points.push(...s.points);
    else {
      index.set(`${s.asset_id}\u0000${s.variable}`, series.length);
      series.push({ ...s, points: [...s.points] });
    }
  }
  return { series, alarms: [...a.alarms, ...b.alarms] };
}
