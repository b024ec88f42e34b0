import type { Statement } from "better-sqlite3";
import type { Sqlite } from "../client.ts";

/** What the write path needs to know about a committed series. */
export type SeriesEntry = { id: number; unit: string | null; lastTs: number | null };

type SeriesRow = { id: number; unit: string | null; last_ts: number | null };

const FORGET_ASSET = "caudal_telemetry_forget_asset";
const FORGET_SERIES = "caudal_telemetry_forget_series";

/*
 * Cache invalidation rides on the database itself: temporary triggers on the server's connection
 * call back into the cache whenever an asset is deleted or moves to another project, or a series
 * is deleted, whether directly or by a foreign key cascade from its project or asset. An
 * invalidation inside a transaction that later rolls back only costs a re-read. Triggers see only
 * their own connection's changes; another process's (an operator's sqlite3 shell) are caught by
 * clearIfChangedElsewhere().
 */
const TRIGGERS = {
  caudal_telemetry_asset_deleted: `AFTER DELETE ON main.assets BEGIN SELECT ${FORGET_ASSET}(OLD.id); END`,
  caudal_telemetry_asset_moved: `AFTER UPDATE OF project_id ON main.assets BEGIN SELECT ${FORGET_ASSET}(OLD.id); END`,
  caudal_telemetry_series_deleted: `AFTER DELETE ON main.telemetry_series BEGIN SELECT ${FORGET_SERIES}(OLD.asset_id, OLD.variable, OLD.id); END`,
} as const;

/**
 * In-memory maps asset → project and (asset, variable) → series for the ingest hot path, so a
 * request of 20 readings costs no lookup query once its series exist. Both maps hold at most one
 * entry per database row (assets, telemetry_series); negative answers are never cached.
 */
export class TelemetryLookups {
  readonly #sqlite: Sqlite;
  readonly #projectOfAsset = new Map<string, string>();
  readonly #series = new Map<string, Map<string, SeriesEntry>>();
  readonly #seriesDeleted = new Set<(seriesId: number) => void>();
  #selectAsset: Statement<[string], { project_id: string }> | undefined;
  #selectSeries: Statement<[string, string], SeriesRow> | undefined;
  #installed = false;
  #triggers = false;
  #dataVersion: unknown;
  #dataVersionQuery: Statement<[], number> | undefined;

  constructor(sqlite: Sqlite) {
    this.#sqlite = sqlite;
  }

  get installed(): boolean {
    return this.#installed;
  }

  /**
   * Prepares the lookups. With `triggers`, also installs the invalidation triggers (without, the
   * caller relies on clearIfChangedElsewhere() alone).
   */
  install(options: { triggers: boolean }): void {
    if (this.#installed) return;
    const db = this.#sqlite;
    if (options.triggers) {
      db.function(FORGET_ASSET, (assetId: unknown) => {
        if (typeof assetId === "string") this.forgetAsset(assetId);
        return null;
      });
      db.function(FORGET_SERIES, (assetId: unknown, variable: unknown, id: unknown) => {
        if (typeof assetId === "string" && typeof variable === "string") {
          this.#series.get(assetId)?.delete(variable);
        }
        if (typeof id === "number") for (const listener of this.#seriesDeleted) listener(id);
        return null;
      });
      for (const [name, body] of Object.entries(TRIGGERS)) {
        db.exec(`CREATE TEMP TRIGGER IF NOT EXISTS ${name} ${body}`);
      }
      this.#triggers = true;
    }
    this.#selectAsset = db.prepare("SELECT project_id FROM assets WHERE id = ?");
    this.#selectSeries = db.prepare(
      "SELECT id, unit, last_ts FROM telemetry_series WHERE asset_id = ? AND variable = ?",
    );
    this.#installed = true;
  }

  /**
   * Drops everything cached when another connection committed since the last call (SQLite's
   * data_version changes exactly then): an asset or series may have gone. Call it inside the
   * write transaction, so nothing can change between the check and the writes. True when it did.
   */
  clearIfChangedElsewhere(): boolean {
    // Prepared once: pragma() prepares the statement anew on every call (~6 µs a commit).
    this.#dataVersionQuery ??= this.#sqlite.prepare<[], number>("PRAGMA data_version").pluck();
    const version = this.#dataVersionQuery.get();
    if (version === this.#dataVersion) return false;
    this.#dataVersion = version;
    this.clear();
    return true;
  }

  /**
   * Calls `listener` with the id of each series this connection deletes (with the triggers
   * installed), as the delete runs; it may yet roll back. Returns the unsubscribe.
   */
  onSeriesDeleted(listener: (seriesId: number) => void): () => void {
    this.#seriesDeleted.add(listener);
    return () => this.#seriesDeleted.delete(listener);
  }

  uninstall(): void {
    if (!this.#installed) return;
    this.#installed = false;
    if (this.#triggers && this.#sqlite.open) {
      for (const name of Object.keys(TRIGGERS)) this.#sqlite.exec(`DROP TRIGGER IF EXISTS temp.${name}`);
    }
    this.#triggers = false;
    this.clear();
  }

  /** The project owning `assetId`, or undefined when no such asset exists. */
  projectOf(assetId: string): string | undefined {
    const cached = this.#projectOfAsset.get(assetId);
    if (cached !== undefined) return cached;
    const row = this.#statement(this.#selectAsset).get(assetId);
    if (!row) return undefined;
    this.#projectOfAsset.set(assetId, row.project_id);
    return row.project_id;
  }

  /** A committed series, from memory or the database; undefined when it does not exist yet. */
  series(assetId: string, variable: string): SeriesEntry | undefined {
    const cached = this.#series.get(assetId)?.get(variable);
    if (cached) return cached;
    const row = this.#statement(this.#selectSeries).get(assetId, variable);
    if (!row) return undefined;
    const entry: SeriesEntry = { id: row.id, unit: row.unit, lastTs: row.last_ts };
    this.remember(assetId, variable, entry);
    return entry;
  }

  /** Records committed state (call only after the commit that made it true). */
  remember(assetId: string, variable: string, entry: SeriesEntry): void {
    let byVariable = this.#series.get(assetId);
    if (!byVariable) {
      byVariable = new Map();
      this.#series.set(assetId, byVariable);
    }
    byVariable.set(variable, entry);
  }

  forgetAsset(assetId: string): void {
    this.#projectOfAsset.delete(assetId);
    this.#series.delete(assetId);
  }

  clear(): void {
    this.#projectOfAsset.clear();
    this.#series.clear();
  }

  #statement<S>(statement: S | undefined): S {
    if (!statement) throw new Error("telemetry lookups used before install()");
    return statement;
  }
}
