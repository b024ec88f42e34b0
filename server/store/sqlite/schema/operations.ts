import { index, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt, id, instant } from "./columns.ts";
import { assets, projects } from "./field.ts";
import { users } from "./identity.ts";

/**
 * Operational records are append-only (API MPMS 21.1 §5: quantity records kept original and
 * unaltered). A correction is a new row naming the row it supersedes; the unique index on
 * `supersedes` keeps each chain linear (a record is corrected at most once) and serves the
 * `superseded_by` lookup.
 */
const recordColumns = () => ({
  id: id(),
  projectId: text("project_id")
    .notNull()
    .references(() => projects.id, { onDelete: "cascade" }),
  supersedes: text("supersedes"),
  correctionReason: text("correction_reason"),
  createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
  createdAt: createdAt(),
});

export const movements = sqliteTable(
  "movements",
  {
    ...recordColumns(),
    movementType: text("movement_type", {
      enum: ["production", "transfer", "injection", "flare", "loss"],
    }).notNull(),
    volumeBbls: real("volume_bbls").notNull(),
    timestamp: instant("timestamp").notNull(),
    notes: text("notes"),
  },
  (t) => [
    index("movements_project_ts_idx").on(t.projectId, t.timestamp),
    uniqueIndex("movements_supersedes_uq").on(t.supersedes),
  ],
);

export const downtime = sqliteTable(
  "downtime",
  {
    ...recordColumns(),
    reason: text("reason").notNull(),
    startedAt: instant("started_at").notNull(),
    endedAt: instant("ended_at"),
  },
  (t) => [
    index("downtime_project_idx").on(t.projectId, t.startedAt),
    uniqueIndex("downtime_supersedes_uq").on(t.supersedes),
  ],
);

export const wellTests = sqliteTable(
  "well_tests",
  {
    ...recordColumns(),
    assetId: text("asset_id")
      .notNull()
      .references(() => assets.id, { onDelete: "cascade" }),
    testDate: instant("test_date").notNull(),
    oilRateBopd: real("oil_rate_bopd"),
    waterCutPct: real("water_cut_pct"),
    gorScfBbl: real("gor_scf_bbl"),
  },
  (t) => [
    index("well_tests_project_idx").on(t.projectId, t.testDate),
    uniqueIndex("well_tests_supersedes_uq").on(t.supersedes),
  ],
);

export const labResults = sqliteTable(
  "lab_results",
  {
    ...recordColumns(),
    sampleDate: instant("sample_date").notNull(),
    apiGravity: real("api_gravity").notNull(),
    bswPct: real("bsw_pct"),
    viscosityCp: real("viscosity_cp"),
  },
  (t) => [
    index("lab_results_project_idx").on(t.projectId, t.sampleDate),
    uniqueIndex("lab_results_supersedes_uq").on(t.supersedes),
  ],
);

export const meterReadings = sqliteTable(
  "meter_readings",
  {
    ...recordColumns(),
    meterId: text("meter_id")
      .notNull()
      .references(() => assets.id, { onDelete: "cascade" }),
    readingValue: real("reading_value").notNull(),
    readAt: instant("read_at").notNull(),
    unit: text("unit"),
  },
  (t) => [
    index("meter_readings_project_idx").on(t.projectId, t.readAt),
    uniqueIndex("meter_readings_supersedes_uq").on(t.supersedes),
  ],
);
