import { doublePrecision, index, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";
import { bytes, int } from "./columns.ts";
import { assets, projects } from "./field.ts";

/**
 * A series is one (asset, variable) pair, keyed by a small integer so that raw rows and rollups
 * stay narrow. Raw rows, packed blocks and rollups carry no foreign key (a lookup per inserted
 * point): they go with their series by the trigger in migration 0003.
 */
export const telemetrySeries = pgTable(
  "telemetry_series",
  {
    id: int("id").primaryKey().generatedByDefaultAsIdentity(),
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    assetId: text("asset_id")
      .notNull()
      .references(() => assets.id, { onDelete: "cascade" }),
    variable: text("variable").notNull(),
    unit: text("unit"),
    /** Epoch ms of the newest reading; drives comm_loss and "active" asset counts. */
    lastTs: int("last_ts"),
    lastValue: doublePrecision("last_value"),
    /**
     * PostgreSQL only: the roll-up watermark, every stored reading with ts < rolled_to is in the
     * rollups (SQLite keeps it in the writer's memory). Null: not known, read back from the
     * rollups and stored readings (store/postgres/telemetry/rollup-state.ts).
     */
    rolledTo: int("rolled_to"),
  },
  (t) => [
    uniqueIndex("telemetry_series_asset_variable_uq").on(t.assetId, t.variable),
    index("telemetry_series_project_idx").on(t.projectId),
  ],
);

/**
 * Raw readings: (series, epoch ms) → value. Range-partitioned by ts, one partition per UTC day
 * (migration 0002: drizzle-kit cannot declare partitioning, so it recreates the table).
 */
export const telemetryRaw = pgTable(
  "telemetry_raw",
  {
    seriesId: int("series_id").notNull(),
    ts: int("ts").notNull(),
    value: doublePrecision("value").notNull(),
  },
  (t) => [primaryKey({ columns: [t.seriesId, t.ts] })],
);

/**
 * New readings on their way to telemetry_raw or a packed block (services/telemetry/inbox.ts): a
 * rowid table without an index, so a commit of readings scattered over many series appends to a
 * page or two instead of dirtying one page of telemetry_raw's key per series. Moved out in bulk,
 * every few hundred milliseconds and before any read; a (series, ts) here is stored nowhere else.
 */
export const telemetryInbox = pgTable("telemetry_inbox", {
  seriesId: int("series_id").notNull(),
  ts: int("ts").notNull(),
  value: doublePrecision("value").notNull(),
});

/**
 * Packed cold readings (services/telemetry/codec): the points of one series from first_ts to
 * last_ts, inclusive, within one UTC day, compressed into one block. Blocks of a series never
 * overlap, and a (series, ts) is either here or in telemetry_raw, never both.
 */
export const telemetryPacked = pgTable(
  "telemetry_packed",
  {
    seriesId: int("series_id").notNull(),
    firstTs: int("first_ts").notNull(),
    lastTs: int("last_ts").notNull(),
    count: int("count").notNull(),
    data: bytes("data").notNull(),
  },
  (t) => [primaryKey({ columns: [t.seriesId, t.firstTs] })],
);

const rollupColumns = () => ({
  seriesId: int("series_id").notNull(),
  /** Bucket start, epoch ms, aligned to UTC. */
  bucket: int("bucket").notNull(),
  count: int("count").notNull(),
  sum: doublePrecision("sum").notNull(),
  min: doublePrecision("min").notNull(),
  max: doublePrecision("max").notNull(),
});

/** 5-minute rollups, maintained on ingest and kept beyond raw retention. */
export const telemetryRollup5m = pgTable("telemetry_rollup_5m", rollupColumns(), (t) => [
  primaryKey({ columns: [t.seriesId, t.bucket] }),
]);

/** Hourly rollups for long ranges. */
export const telemetryRollup1h = pgTable("telemetry_rollup_1h", rollupColumns(), (t) => [
  primaryKey({ columns: [t.seriesId, t.bucket] }),
]);
