import type { PackTotals } from "../../ports/telemetry-store.ts";
import { addStep, noPackTotals, type PackStep } from "../../telemetry/pack-step.ts";
import type { Sqlite } from "../client.ts";
import { type CompactLook, compactNext, type YoungBlocks } from "./compact-blocks.ts";
import { PackStatements, packNext } from "./pack-block.ts";
import type { RollupTracker } from "./rollup-tracker.ts";

export type PackProgress = PackTotals & { seriesDone: number; seriesTotal: number };

const pause = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Free pages given back to the file system per statement (4 MiB at the default page size). */
const VACUUM_PAGES = 1_000;
/**
 * Freed pages are given back once they exceed a quarter of the file, down to a fiftieth: the next
 * hours of ingest reuse free pages, and giving them back only to grow the file again would move
 * pages for nothing. Once cold data dominates the file, an hour's freed raw pages stay below the
 * threshold and nothing moves.
 */
const RELEASE_ABOVE = 0.25;
const KEEP_FREE = 0.02;
const MIN_FREE_PAGES = 64;
/** WAL truncation attempts after a pass, and the pause between them. */
const TRUNCATE_ATTEMPTS = 50;
const TRUNCATE_RETRY_MS = 100;

/**
 * Packs cold raw telemetry (older than its pack cutoff) into compressed blocks, series by series,
 * one transaction per block (pack-block.ts), yielding to the event loop between transactions so
 * ingest and reads keep their turn. Only rows already in the rollups are packed: a series' rows
 * from its roll-up watermark on are left for the next pass.
 */
export class TelemetryPacker {
  readonly #sqlite: Sqlite;
  readonly #tracker: RollupTracker;
  readonly #stmts: PackStatements;
  readonly #young: YoungBlocks;

  constructor(sqlite: Sqlite, tracker: RollupTracker, young: YoungBlocks) {
    this.#sqlite = sqlite;
    this.#tracker = tracker;
    this.#young = young;
    this.#stmts = new PackStatements(sqlite);
  }

  /**
   * One pass over every series: packs their raw rows with ts < cutoffMs. `progress` is called
   * every `progressMs` while the pass runs.
   */
  async pack(
    cutoffMs: number,
    shouldStop: () => boolean,
    progress: (p: PackProgress) => void = () => undefined,
    progressMs = 10_000,
  ): Promise<PackTotals> {
    const started = performance.now();
    const totals = noPackTotals();
    const ids = this.#sqlite.prepare<[], number>("SELECT id FROM telemetry_series ORDER BY id").pluck().all();
    let reported = started;
    const report = (seriesDone: number) => {
      const now = performance.now();
      if (now - reported < progressMs) return;
      reported = now;
      progress({ ...finish({ ...totals }, started), seriesDone, seriesTotal: ids.length });
    };
    for (let s = 0; s < ids.length; s++) {
      const id = ids[s] ?? 0;
      let packedAny = false;
      for (;;) {
        if (shouldStop()) return finish(totals, started);
        const stepStarted = performance.now();
        const step = this.#step(id, cutoffMs);
        totals.longestStepMs = Math.max(totals.longestStepMs, performance.now() - stepStarted);
        if (!step) break;
        packedAny = true;
        addStep(totals, step);
        await pause();
        report(s);
      }
      // Blocks written straight from commits: join the small ones once they are cold too.
      for (let from = this.#young.from(id); from !== undefined; ) {
        if (shouldStop()) return finish(totals, started);
        const stepStarted = performance.now();
        const look = this.#compact(id, from, cutoffMs);
        totals.longestStepMs = Math.max(totals.longestStepMs, performance.now() - stepStarted);
        if (look.step) {
          packedAny = true;
          addStep(totals, look.step);
        }
        if (look.next === undefined) {
          this.#young.settle(id, look.resumeAt);
          break;
        }
        from = look.next;
        await pause();
        report(s);
      }
      if (packedAny) totals.series++;
      if (s % 500 === 499) await pause();
    }
    return finish(totals, started);
  }

  /**
   * Gives free pages back to the file system (PRAGMA incremental_vacuum, a few MiB per
   * statement) when the database was created with auto_vacuum = INCREMENTAL (db/client.ts) and
   * they exceed RELEASE_ABOVE of it. Returns the pages released.
   */
  async releaseFreePages(shouldStop: () => boolean): Promise<number> {
    if (Number(this.#sqlite.pragma("auto_vacuum", { simple: true })) !== 2) return 0;
    const pragma = (name: string) => Number(this.#sqlite.pragma(name, { simple: true }));
    const pages = pragma("page_count");
    if (pragma("freelist_count") <= Math.max(MIN_FREE_PAGES, pages * RELEASE_ABOVE)) return 0;
    let released = 0;
    for (;;) {
      const free = pragma("freelist_count");
      // Released pages leave the file: a fiftieth of what it keeps stays free.
      const keep = Math.max(MIN_FREE_PAGES, ((pragma("page_count") - free) * KEEP_FREE) / (1 - KEEP_FREE));
      if (free <= keep || shouldStop()) return released;
      const step = Math.min(VACUUM_PAGES, Math.ceil(free - keep));
      this.#sqlite.pragma(`incremental_vacuum(${step})`);
      released += step;
      await pause();
    }
  }

  /**
   * Checkpoints the WAL and truncates it to nothing: a packing pass rewrites a lot, and the WAL
   * file keeps its largest size until truncated. The attempt never waits on a lock (the WAL
   * checkpointer's thread may hold it for a moment); it is retried every TRUNCATE_RETRY_MS, up to
   * TRUNCATE_ATTEMPTS times. Returns whether the WAL was truncated.
   */
  async truncateWal(shouldStop: () => boolean): Promise<boolean> {
    for (let attempt = 0; attempt < TRUNCATE_ATTEMPTS && !shouldStop(); attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, TRUNCATE_RETRY_MS));
      const timeout = Number(this.#sqlite.pragma("busy_timeout", { simple: true }));
      this.#sqlite.pragma("busy_timeout = 0");
      try {
        const [result] = this.#sqlite.pragma("wal_checkpoint(TRUNCATE)") as { busy: number }[];
        if (result?.busy === 0) return true;
      } finally {
        this.#sqlite.pragma(`busy_timeout = ${timeout}`);
      }
    }
    return false;
  }

  #compact(seriesId: number, from: number, cutoffMs: number): CompactLook {
    return this.#sqlite.transaction(() => compactNext(this.#stmts, seriesId, from, cutoffMs)).immediate();
  }

  #step(seriesId: number, cutoffMs: number): PackStep | undefined {
    return this.#sqlite
      .transaction(() => {
        // Rows from the roll-up watermark on are not in the rollups yet: they stay raw for now.
        const before = Math.min(cutoffMs, this.#tracker.stateOf(seriesId).rolledTo);
        return packNext(this.#stmts, seriesId, before);
      })
      .immediate();
  }
}

function finish(totals: PackTotals, started: number): PackTotals {
  totals.seconds = (performance.now() - started) / 1000;
  return totals;
}
