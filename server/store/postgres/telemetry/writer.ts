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
import { NOTHING, writeBatch } from "./write-batch.ts";

/** Runs `work` in a transaction on one connection: plain SQL, and the store's ports bound to it. */
export type TransactionRunner = <T>(work: (query: Query, ports: StorePorts) => Promise<T>) => Promise<T>;

/** How often pending readings are rolled up (SQLite's rollupIntervalMs) and partitions made ahead. */
const ROLLUP_INTERVAL_MS = 10_000;
const PARTITIONS_INTERVAL_MS = 3600_000;

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** PostgreSQL's deadlock_detected: two writes' later steps (their complete()) locked across. */
const isDeadlock = (err: unknown) => err instanceof Error && "code" in err && err.code === "40P01";

type Running = { options: TelemetryWriterOptions; host: TelemetryWriterHost; timers: NodeJS.Timeout[] };

/**
 * The telemetry writer of a PostgresStore, shared by its ports: each write commits in a
 * transaction of its own (no group commit: PostgreSQL takes concurrent writers, and a write's
 * rows go in a few bulk statements); roll-ups every ROLLUP_INTERVAL_MS and before reads; day
 * partitions made ahead of time; retention by dropping partitions; packing with SQLite's codec.
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
    const instants = function* () {
      for (const s of batch.series) for (const [ts] of s.points) yield ts;
    };
    if (pointCount(batch) > 0) await this.#partitions.ensure(instants());
    const attempt = () =>
      this.#transaction(async (query, ports) => {
        if (tx && !(await tx.claim(ports))) return NOTHING;
        const written = await writeBatch(
          query,
          new PgPoints(query, this.#cache),
          batch,
          period,
          running.options.blockPoints,
        );
        if (tx) await tx.complete(ports);
        return written;
      });
    try {
      return await attempt();
    } catch (err) {
      if (isMissingPartition(err)) {
        // Another server's retention dropped a day this one knew: learn the days again.
        this.#partitions.clear();
        await this.#partitions.ensure(instants());
      } else if (!isDeadlock(err)) {
        throw err;
      }
      running.host.warn("telemetry write retried", { error: errorText(err) });
      return attempt();
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
