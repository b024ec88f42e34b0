import type { Pool } from "pg";
import { pointCount, type TelemetryBatch } from "../../../../shared/telemetry/batch.ts";
import { AppError } from "../../../errors.ts";
import type {
  BatchTransaction,
  PackTotals,
  TelemetryWriterHost,
  TelemetryWriterOptions,
  WrittenBatch,
} from "../../ports/telemetry-store.ts";
import type { StorePorts } from "../../store.ts";
import { BlockCache } from "../../telemetry/blocks.ts";
import { DAY_MS } from "../../telemetry/buckets.ts";
import { AssetProjects } from "./asset-projects.ts";
import { packTelemetry } from "./pack.ts";
import { isMissingPartition, PartitionDays } from "./partitions.ts";
import { PgPoints } from "./points.ts";
import type { Query } from "./query.ts";
import { PgRollupRunner } from "./rollup-runner.ts";
import { NOTHING, type WritePart, writeBatches } from "./write-batch.ts";

/** Runs `work` in a transaction on one connection: plain SQL, and the store's ports bound to it. */
export type TransactionRunner = <T>(work: (query: Query, ports: StorePorts) => Promise<T>) => Promise<T>;

/** How often pending readings are rolled up (SQLite's rollupIntervalMs) and partitions made ahead. */
const ROLLUP_INTERVAL_MS = 10_000;
const PARTITIONS_INTERVAL_MS = 3600_000;

/** Every reading's instant, for the partitions the writes need. */
function* instants(batches: readonly TelemetryBatch[]): Iterable<number> {
  for (const batch of batches) for (const s of batch.series) for (const [ts] of s.points) yield ts;
}

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** PostgreSQL's deadlock_detected: two writes' later steps (their complete()) locked across. */
const isDeadlock = (err: unknown) => err instanceof Error && "code" in err && err.code === "40P01";

type Running = { options: TelemetryWriterOptions; host: TelemetryWriterHost; timers: NodeJS.Timeout[] };

/** A write waiting for its group's commit. */
type Queued = WritePart & {
  tx: BatchTransaction | undefined;
  resolve: (written: WrittenBatch) => void;
  reject: (err: unknown) => void;
};

/**
 * Group commit: writes queue and go in groups, each one transaction, at most GROUPS_AT_ONCE at a
 * time. Writes of one series take turns on its row lock whatever their transactions, so one
 * transaction per write capped throughput at one lock holder's round trips (measured: 280 agent
 * batches/s of 10 points over MQTT, 4 agents); a group pays them once for all its writes.
 */
const GROUPS_AT_ONCE = 2;
/** A group's bounds: writes, and points (a group's arrays and the rows it holds locked). */
const GROUP_WRITES = 256;
const GROUP_POINTS = 100_000;

/**
 * The telemetry writer of a PostgresStore, shared by its ports: writes commit in groups (see
 * GROUPS_AT_ONCE), a group's rows in a few bulk statements; roll-ups every ROLLUP_INTERVAL_MS
 * and before reads; day partitions made ahead of time; retention by dropping partitions; packing
 * with SQLite's codec.
 */
export class PgTelemetryWriter {
  readonly #pool: Pool;
  readonly #transaction: TransactionRunner;
  readonly #partitions: PartitionDays;
  readonly #assets: AssetProjects;
  readonly #rollups: PgRollupRunner;
  readonly #cache = new BlockCache(64);
  #running: Running | undefined;
  #stopping = false;
  #background: Promise<void> | undefined;
  #passes = new Set<Promise<unknown>>();
  readonly #queue: Queued[] = [];
  #groups = 0;

  constructor(pool: Pool, transaction: TransactionRunner) {
    this.#pool = pool;
    this.#transaction = transaction;
    this.#partitions = new PartitionDays(pool);
    this.#assets = new AssetProjects(pool);
    this.#rollups = new PgRollupRunner((work) => transaction((query) => work(query)));
  }

  get started(): boolean {
    return this.#running !== undefined && !this.#stopping;
  }

  async start(options: TelemetryWriterOptions, host: TelemetryWriterHost): Promise<void> {
    if (this.#running) return;
    this.#stopping = false;
    await this.#partitions.ahead(Date.now());
    await this.#assets.start();
    const timers = [
      setInterval(() => this.#scheduledRollup(), ROLLUP_INTERVAL_MS),
      setInterval(() => {
        this.#partitions.ahead(Date.now()).catch((err: unknown) => {
          host.error("telemetry partitions ahead failed", { error: errorText(err) });
        });
      }, PARTITIONS_INTERVAL_MS),
    ];
    for (const t of timers) t.unref();
    this.#running = { options, host, timers };
    // Readings a crash left without roll-up: their series are pending (last_ts ≥ rolled_to).
    this.#scheduledRollup();
  }

  /** Lets writes under way commit (new ones are refused), then rolls everything up. */
  async stop(): Promise<void> {
    const running = this.#running;
    if (!running || this.#stopping) return;
    this.#stopping = true;
    for (const t of running.timers) clearInterval(t);
    await this.#background?.catch(() => undefined);
    while (this.#passes.size > 0) await Promise.allSettled([...this.#passes]);
    try {
      await this.#rollups.rollUpAll();
    } catch (err) {
      // Not fatal: the next start finds these series still pending.
      running.host.error("telemetry roll-up at shutdown failed", { error: errorText(err) });
    }
    await this.#assets.stop();
    this.#running = undefined;
    this.#stopping = false;
  }

  projectOfAsset(assetId: string): Promise<string | undefined> {
    return this.#assets.projectOf(assetId);
  }

  async write(batch: TelemetryBatch, period: string, tx?: BatchTransaction): Promise<WrittenBatch> {
    const running = this.#require();
    if (batch.series.length === 0 && !tx) {
      return { result: { accepted: 0, duplicates: 0 }, committed: { source: batch.source, series: [] } };
    }
    // Taken from here on: stop() waits for it.
    return this.#inFlight(() => this.#write(running, batch, period, tx));
  }

  async #write(
    running: Running,
    batch: TelemetryBatch,
    period: string,
    tx: BatchTransaction | undefined,
  ): Promise<WrittenBatch> {
    if (pointCount(batch) > 0) await this.#partitions.ensure(instants([batch]));
    return new Promise<WrittenBatch>((resolve, reject) => {
      this.#queue.push({ batch, period, tx, resolve, reject });
      this.#drain(running);
    });
  }

  /** Starts groups while writes wait and fewer than GROUPS_AT_ONCE run. */
  #drain(running: Running): void {
    while (this.#queue.length > 0 && this.#groups < GROUPS_AT_ONCE) {
      const group: Queued[] = [];
      let points = 0;
      for (const next of this.#queue) {
        const n = pointCount(next.batch);
        if (group.length > 0 && (group.length >= GROUP_WRITES || points + n > GROUP_POINTS)) break;
        group.push(next);
        points += n;
      }
      this.#queue.splice(0, group.length);
      this.#groups++;
      void this.#commitGroup(running, group).finally(() => {
        this.#groups--;
        this.#drain(running);
      });
    }
  }

  /**
   * One transaction for the group. If it fails, each of its writes is tried alone, so that one
   * write's failure (an asset deleted since its request) fails that write only.
   */
  async #commitGroup(running: Running, group: readonly Queued[]): Promise<void> {
    try {
      const written = await this.#attempt(running, group);
      group.forEach((w, i) => {
        w.resolve(written[i] as WrittenBatch);
      });
      return;
    } catch (err) {
      if (group.length === 1) {
        group[0]?.reject(err);
        return;
      }
    }
    for (const w of group) {
      try {
        const [written] = await this.#attempt(running, [w]);
        w.resolve(written as WrittenBatch);
      } catch (err) {
        w.reject(err);
      }
    }
  }

  /** The writes in one transaction, retried once after a deadlock or a partition another server dropped. */
  async #attempt(running: Running, writes: readonly Queued[]): Promise<WrittenBatch[]> {
    const once = () =>
      this.#transaction(async (query, ports) => {
        // Each write's claim() first: one refused leaves its batch out.
        const claimed: Queued[] = [];
        const answers = new Map<Queued, WrittenBatch>();
        for (const w of writes) {
          if (w.tx && !(await w.tx.claim(ports))) answers.set(w, NOTHING);
          else claimed.push(w);
        }
        const written = await writeBatches(
          query,
          new PgPoints(query, this.#cache),
          claimed,
          running.options.blockPoints,
        );
        claimed.forEach((w, i) => {
          answers.set(w, written[i] as WrittenBatch);
        });
        for (const w of claimed) if (w.tx?.complete) await w.tx.complete(ports);
        return writes.map((w) => answers.get(w) as WrittenBatch);
      });
    try {
      return await once();
    } catch (err) {
      if (isMissingPartition(err)) {
        // Another server's retention dropped a day this one knew: learn the days again.
        this.#partitions.clear();
        await this.#partitions.ensure(instants(writes.map((w) => w.batch)));
      } else if (!isDeadlock(err)) {
        throw err;
      }
      running.host.warn("telemetry write retried", { error: errorText(err) });
      return once();
    }
  }

  rollUp(seriesIds: readonly number[]): Promise<void> {
    return this.#rollups.rollUp(seriesIds);
  }

  rollUpAll(): Promise<void> {
    return this.#rollups.rollUpAll();
  }

  /**
   * Drops the day partitions that ended by the cutoff, and the packed blocks of those days (a
   * block never crosses a UTC day); the day holding the cutoff stays whole until it ends.
   */
  deleteRawBefore(cutoffMs: number): Promise<number> {
    return this.#pass(async () => {
      await this.#rollups.rollUpAll(() => this.#stopping);
      if (this.#stopping) return 0;
      const boundary = Math.floor(cutoffMs / DAY_MS) * DAY_MS;
      // Dropping a partition locks telemetry_raw whole (ACCESS EXCLUSIVE on the parent) until the
      // commit: this transaction does nothing after it, and the blocks go in a statement of their own.
      const raw = await this.#transaction(async (query) => {
        const [rows] = await query<[number]>("SELECT count(*)::float8 FROM telemetry_raw WHERE ts < $1", [
          boundary,
        ]);
        await query("SELECT caudal_drop_telemetry_partitions($1)", [boundary]);
        return rows?.[0] ?? 0;
      });
      const { rows: packed } = await this.#pool.query<[number]>({
        text: `WITH gone AS (DELETE FROM telemetry_packed WHERE last_ts < $1 RETURNING count)
               SELECT coalesce(sum(count), 0)::float8 FROM gone`,
        values: [boundary],
        rowMode: "array",
      });
      const deleted = raw + (packed[0]?.[0] ?? 0);
      this.#partitions.forgetBefore(boundary / DAY_MS);
      return deleted;
    });
  }

  pack(
    cutoffMs: number,
    progress: (p: PackTotals & { seriesDone: number; seriesTotal: number }) => void = () => undefined,
  ): Promise<PackTotals> {
    return this.#pass(async () => {
      const stop = () => this.#stopping;
      await this.#rollups.rollUpAll(stop);
      const { rows } = await this.#pool.query<[number]>({
        text: "SELECT id::float8 FROM telemetry_series ORDER BY id",
        rowMode: "array",
      });
      return packTelemetry(
        (work) => this.#transaction((query) => work(query)),
        rows.map((r) => r[0]),
        cutoffMs,
        stop,
        progress,
      );
    });
  }

  #require(): Running {
    if (!this.#running || this.#stopping)
      throw new AppError("Unavailable", "telemetry storage is not running");
    return this.#running;
  }

  /** A retention or packing pass: stop() waits for it. */
  #pass<T>(work: () => Promise<T>): Promise<T> {
    return this.#inFlight(work);
  }

  /** Work stop() waits for before its last roll-up (writes under way, passes). */
  #inFlight<T>(work: () => Promise<T>): Promise<T> {
    const run = work();
    this.#passes.add(run);
    const forget = () => this.#passes.delete(run);
    run.then(forget, forget);
    return run;
  }

  #scheduledRollup(): void {
    const running = this.#running;
    if (!running || this.#stopping || this.#background !== undefined) return;
    const run = this.#rollups
      .rollUpAll(() => this.#stopping)
      .catch((err: unknown) => running.host.error("telemetry roll-up failed", { error: errorText(err) }))
      .finally(() => {
        if (this.#background === run) this.#background = undefined;
      });
    this.#background = run;
  }
}
