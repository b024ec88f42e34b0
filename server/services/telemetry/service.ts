import { AppError } from "../../http/errors.ts";
import type { ServiceContext } from "../context.ts";
import { GroupCommit, type GroupCommitOptions } from "./group-commit.ts";
import { DAY_MS } from "./limits.ts";
import { TelemetryLookups } from "./lookups.ts";
import { registerTelemetryMetrics, type TelemetryTotals } from "./metrics.ts";
import { deleteExpiredRaw } from "./retention.ts";
import { WriteStatements } from "./statements.ts";
import type { TelemetryItem, WriteResult } from "./types.ts";

export type TelemetryServiceOptions = GroupCommitOptions & {
  /** How often raw readings older than TELEMETRY_RETENTION_DAYS are deleted. */
  retentionIntervalMs: number;
  /** Delay of the first retention pass after start-up. */
  retentionFirstRunMs: number;
};

export const DEFAULT_TELEMETRY_OPTIONS: TelemetryServiceOptions = {
  windowMs: 5,
  maxQueuedReadings: 20_000,
  retentionIntervalMs: 3600_000,
  retentionFirstRunMs: 60_000,
};

/**
 * Telemetry storage of one server: the group-committed write path with its lookups, and the raw
 * retention job. The constructor only assigns; start() prepares statements, installs the cache
 * invalidation triggers and arms the retention timer; stop() commits what is queued and undoes
 * the rest (DESIGN.md, Lifecycles).
 */
export class TelemetryService {
  readonly #ctx: ServiceContext;
  readonly #options: TelemetryServiceOptions;
  readonly #lookups: TelemetryLookups;
  readonly #totals: TelemetryTotals = { stored: 0, duplicates: 0, commits: 0, retentionDeleted: 0 };
  #commits: GroupCommit | undefined;
  #retentionFirst: NodeJS.Timeout | undefined;
  #retentionTimer: NodeJS.Timeout | undefined;
  #retentionRun: Promise<number> | undefined;
  #stopping = false;

  constructor(ctx: ServiceContext, options: Partial<TelemetryServiceOptions> = {}) {
    this.#ctx = ctx;
    this.#options = { ...DEFAULT_TELEMETRY_OPTIONS, ...options };
    this.#lookups = new TelemetryLookups(ctx.sqlite);
  }

  get started(): boolean {
    return this.#commits !== undefined;
  }

  start(): void {
    if (this.#commits) return;
    const ctx = this.#ctx;
    this.#stopping = false;
    this.#lookups.install();
    this.#commits = new GroupCommit(
      {
        sqlite: ctx.sqlite,
        statements: new WriteStatements(ctx.sqlite),
        lookups: this.#lookups,
        events: ctx.events,
        logger: ctx.logger,
        totals: this.#totals,
        // Billing counts a point in the UTC month it was received (spec §2, BillingUsage).
        period: () => ctx.clock.now().toISOString().slice(0, 7),
      },
      this.#options,
    );
    registerTelemetryMetrics(ctx.metrics, () => this.#totals);
    const scheduled = () => {
      this.runRetention().catch((err: unknown) =>
        ctx.logger.error("telemetry retention failed", {
          error: err instanceof Error ? err.message : String(err),
        }),
      );
    };
    this.#retentionFirst = setTimeout(scheduled, this.#options.retentionFirstRunMs);
    this.#retentionFirst.unref();
    this.#retentionTimer = setInterval(scheduled, this.#options.retentionIntervalMs);
    this.#retentionTimer.unref();
  }

  /** Commits whatever is queued, stops the timers and waits for a retention pass in progress. */
  async stop(): Promise<void> {
    if (!this.#commits) return;
    this.#stopping = true;
    clearTimeout(this.#retentionFirst);
    clearInterval(this.#retentionTimer);
    this.#retentionFirst = undefined;
    this.#retentionTimer = undefined;
    this.#commits.flush();
    this.#commits = undefined;
    await this.#retentionRun?.catch(() => 0);
    this.#lookups.uninstall();
  }

  /** The project owning `assetId`; undefined when the asset does not exist. */
  projectOfAsset(assetId: string): string | undefined {
    return this.#lookups.projectOf(assetId);
  }

  /**
   * Queues validated payloads for the next group commit; resolves once they are committed, with
   * what was stored (see WriteResult). Payloads older than the retention window are not stored.
   */
  write(items: readonly TelemetryItem[]): Promise<WriteResult> {
    if (!this.#commits || this.#stopping) {
      return Promise.reject(new AppError("Unavailable", "telemetry storage is not running"));
    }
    const cutoff = this.retentionCutoff(this.#ctx.clock.now().getTime());
    let expired = 0;
    for (const item of items) if (item.ts < cutoff) expired += item.readings.length;
    if (expired === 0) return this.#commits.submit(items);
    const kept = items.filter((item) => item.ts >= cutoff);
    if (kept.length === 0) return Promise.resolve({ accepted: 0, duplicates: 0, expired });
    return this.#commits.submit(kept).then((result) => ({ ...result, expired }));
  }

  /** Earliest timestamp still kept raw (TELEMETRY_RETENTION_DAYS before now). */
  retentionCutoff(nowMs: number): number {
    return nowMs - this.#ctx.config.TELEMETRY_RETENTION_DAYS * DAY_MS;
  }

  /**
   * Deletes raw readings older than the retention window (rollups are kept). The timer runs it;
   * tests call it. Concurrent calls share one pass.
   */
  runRetention(): Promise<number> {
    if (this.#retentionRun) return this.#retentionRun;
    const cutoff = this.retentionCutoff(this.#ctx.clock.now().getTime());
    const run = deleteExpiredRaw(this.#ctx.sqlite, cutoff, () => this.#stopping)
      .then((deleted) => {
        this.#totals.retentionDeleted += deleted;
        if (deleted > 0)
          this.#ctx.logger.info("telemetry retention", { deleted, cutoff: new Date(cutoff).toISOString() });
        return deleted;
      })
      .finally(() => {
        this.#retentionRun = undefined;
      });
    this.#retentionRun = run;
    return run;
  }
}

const services = new WeakMap<ServiceContext, TelemetryService>();

/**
 * The telemetry service of the server that owns `ctx` (one per context, created on first use).
 * CaudalServer starts and stops it; routes and other services reach it through this function.
 */
export function telemetryService(ctx: ServiceContext): TelemetryService {
  let service = services.get(ctx);
  if (!service) {
    service = new TelemetryService(ctx);
    services.set(ctx, service);
  }
  return service;
}
