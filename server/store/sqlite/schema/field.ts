import { blob, index, integer, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { DATA_TYPES } from "../../../../shared/field/data-types.ts";
import { createdAt, flag, id, instant } from "./columns.ts";

export const projects = sqliteTable("projects", {
  id: id(),
  name: text("name").notNull(),
  /** Unique, URL-safe (shared/field/slug.ts): the Sparkplug group_id and the UNS project level. */
  slug: text("slug").notNull().unique("projects_slug_uq"),
  description: text("description"),
  location: text("location"),
  isActive: flag("is_active").notNull().default(true),
  /** IANA zone of the production day (ANH 0651 daily report). */
  timezone: text("timezone").notNull().default("America/Bogota"),
  lastHealthReport: text("last_health_report", { mode: "json" }),
  /** SHA-256 hex of the current agent token; null until one is issued. */
  agentTokenHash: text("agent_token_hash"),
  /** Deploy every change to devices, variables and alert rules automatically (debounced). */
  autoDeploy: flag("auto_deploy").notNull().default(true),
  /** The Sparkplug edge_node_id under which the server publishes the project's agent. */
  sparkplugEdgeNodeId: text("sparkplug_edge_node_id").notNull().default("agent"),
  /** Sparkplug 3.0 primary host: births wait until its STATE says online; null publishes always. */
  sparkplugPrimaryHostId: text("sparkplug_primary_host_id"),
  createdAt: createdAt(),
  updatedAt: instant("updated_at").notNull(),
});

export const assets = sqliteTable(
  "assets",
  {
    id: id(),
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    assetType: text("asset_type", { enum: ["well", "tank", "pipeline", "station", "meter"] }).notNull(),
    latitude: real("latitude"),
    longitude: real("longitude"),
    createdAt: createdAt(),
    updatedAt: instant("updated_at").notNull(),
  },
  (t) => [index("assets_project_idx").on(t.projectId)],
);

export const devices = sqliteTable(
  "devices",
  {
    id: id(),
    assetId: text("asset_id")
      .notNull()
      .references(() => assets.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    protocol: text("protocol", { enum: ["modbus_tcp", "modbus_rtu", "opc_ua", "s7", "dnp3"] }).notNull(),
    host: text("host"),
    port: integer("port"),
    slaveId: integer("slave_id"),
    enabled: flag("enabled").notNull().default(true),
    /** Protocol settings with their defaults applied (shared/field/protocol-config.ts); null for Modbus. */
    settings: text("settings", { mode: "json" }),
    /** The OPC UA password, AES-256-GCM (write-only: never in a response, an audit entry or a log). */
    settingsPasswordEncrypted: blob("settings_password_encrypted", { mode: "buffer" }),
    createdAt: createdAt(),
    updatedAt: instant("updated_at").notNull(),
  },
  (t) => [index("devices_asset_idx").on(t.assetId)],
);

export const variables = sqliteTable(
  "variables",
  {
    id: id(),
    deviceId: text("device_id")
      .notNull()
      .references(() => devices.id, { onDelete: "cascade" }),
    alias: text("alias").notNull(),
    dataType: text("data_type", { enum: DATA_TYPES }).notNull(),
    registerAddress: integer("register_address"),
    unit: text("unit"),
    scaleFactor: real("scale_factor"),
    enabled: flag("enabled").notNull().default(true),
    address: text("address"),
    registerKind: text("register_kind", { enum: ["holding", "input", "coil", "discrete"] })
      .notNull()
      .default("holding"),
    wordOrder: text("word_order", { enum: ["ABCD", "CDAB", "BADC", "DCBA"] })
      .notNull()
      .default("ABCD"),
    pollIntervalMs: integer("poll_interval_ms").notNull().default(1000),
    deadband: real("deadband").notNull().default(0),
    createdAt: createdAt(),
    updatedAt: instant("updated_at").notNull(),
  },
  (t) => [uniqueIndex("variables_device_alias_uq").on(t.deviceId, t.alias)],
);
