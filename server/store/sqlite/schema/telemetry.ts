import {
  blob,
  index,
  integer,
  primaryKey,
  real,
  sqliteTable,
  text,
  uniqueIndex,
} from "drizzle-orm/sqlite-core";
import { assets, projects } from "./field.ts";

/**
 * A series is one (asset, variable) pair, keyed by a small integer so that raw rows and
 * rollups stay narrow. Raw and rollup tables are WITHOUT ROWID (see migration 0001).
 */
export const telemetrySeries = sqliteTable(
  "telemetry_series",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    assetId: text("asset_id")
      .notNull()
      .references(() => assets.id, { onDelete: "cascade" }),
    variable: text("variable").notNull(),
    unit: text("unit"),
    /** Epoch ms of the newest reading; drives comm_loss and "active" asset counts. */
    lastTs: integer("last_ts"),
    lastValue: real("last_value"),
  },
  (t) => [
    uniqueIndex("telemetry_series_asset_variable_uq").on(t.assetId, t.variable),
    index("telemetry_series_project_idx").on(t.projectId),
  ],
);

/** Raw readings: (series, epoch ms) → value. */
export const telemetryRaw = sqliteTable(
  "telemetry_raw",
  {
    seriesId: integer("series_id").notNull(),
    ts: integer("ts").notNull(),
    value: real("value").notNull(),
  },
  (t) => [primaryKey({ columns: [t.seriesId, t.ts] })],
);

/**
 * New readings on their way to telemetry_raw or a packed block (store/sqlite/telemetry/inbox.ts): a
 * rowid table without an index, so a commit of readings scattered over many series appends to a
 * page or two instead of dirtying one page of telemetry_raw's key per series. Moved out in bulk,
 * every few hundred milliseconds and before any read; a (series, ts) here is stored nowhere else.
 */
export const telemetryInbox = sqliteTable("telemetry_inbox", {
  seriesId: integer("series_id").notNull(),
  ts: integer("ts").notNull(),
  value: real("value").notNull(),
});

/**
 * Packed cold readings (store/telemetry-codec): the points of one series from first_ts to
 * last_ts, inclusive, within one UTC day, compressed into one block. Blocks of a series never
 * overlap, and a (series, ts) is either here or in telemetry_raw, never both.
 */
export const telemetryPacked = sqliteTable(
  "telemetry_packed",
  {
    seriesId: integer("series_id").notNull(),
    firstTs: integer("first_ts").notNull(),
    lastTs: integer("last_ts").notNull(),
    count: integer("count").notNull(),
    data: blob("data", { mode: "buffer" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.seriesId, t.firstTs] })],
);

const rollupColumns = {
  seriesId: integer("series_id").notNull(),
  /** Bucket start, epoch ms, aligned to UTC. */
  bucket: integer("bucket").notNull(),
  count: integer("count").notNull(),
  sum: real("sum").notNull(),
  min: real("min").notNull(),
  max: real("max").notNull(),
};

/** 5-minute rollups, maintained on ingest and kept beyond raw retention. */
export const telemetryRollup5m = sqliteTable("telemetry_rollup_5m", rollupColumns, (t) => [
  primaryKey({ columns: [t.seriesId, t.bucket] }),
]);

/** Hourly rollups for long ranges. */
export const telemetryRollup1h = sqliteTable("telemetry_rollup_1h", rollupColumns, (t) => [
  primaryKey({ columns: [t.seriesId, t.bucket] }),
]);
