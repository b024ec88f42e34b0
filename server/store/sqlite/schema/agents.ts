import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { createdAt, id, instant } from "./columns.ts";
import { projects } from "./field.ts";
import { users } from "./identity.ts";

export const deployments = sqliteTable(
  "deployments",
  {
    id: id(),
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    version: integer("version").notNull(),
    configHash: text("config_hash").notNull(),
    config: text("config", { mode: "json" }).notNull(),
    status: text("status", { enum: ["pending", "applied", "failed"] }).notNull(),
    error: text("error"),
    createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    updatedAt: instant("updated_at").notNull(),
  },
  (t) => [index("deployments_project_idx").on(t.projectId, t.version)],
);

export const agentLogs = sqliteTable(
  "agent_logs",
  {
    id: id(),
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    level: text("level", { enum: ["debug", "info", "warn", "error"] }).notNull(),
    category: text("category").notNull().default("agent"),
    message: text("message").notNull(),
    timestamp: instant("timestamp").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("agent_logs_project_ts_idx").on(t.projectId, t.timestamp)],
);

/** The latest heartbeat and last-will state of a project's agent. */
export const agentStatus = sqliteTable("agent_status", {
  projectId: text("project_id")
    .primaryKey()
    .references(() => projects.id, { onDelete: "cascade" }),
  lastSeen: instant("last_seen").notNull(),
  heartbeat: text("heartbeat", { mode: "json" }),
  offlineAt: instant("offline_at"),
});

/**
 * Telemetry batches already committed, so a batch resent after a lost ack is counted once. A row is
 * a run of one agent's batches, `seq` to `last_seq` (SQLite extends the run its last commit wrote;
 * PostgreSQL writes one row a batch), with their `points` summed and the last one's `received_at`.
 */
export const agentBatches = sqliteTable(
  "agent_batches",
  {
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    agentId: text("agent_id").notNull(),
    seq: integer("seq").notNull(),
    lastSeq: integer("last_seq").notNull(),
    points: integer("points").notNull(),
    receivedAt: instant("received_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.agentId, t.seq] })],
);

export const enrollmentPurposes = ["manual", "linux_script", "msi"] as const;

/**
 * One-time codes an installer carries instead of a long-lived secret: the agent trades one for the
 * project's agent token on its first start. Only the SHA-256 of a code is stored.
 */
export const enrollmentCodes = sqliteTable(
  "enrollment_codes",
  {
    id: id(),
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    codeHash: text("code_hash").notNull().unique(),
    purpose: text("purpose", { enum: enrollmentPurposes }).notNull(),
    /** Null when the system issued it (a script download, an MSI build). */
    createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    expiresAt: instant("expires_at").notNull(),
    usedAt: instant("used_at"),
    revokedAt: instant("revoked_at"),
  },
  (t) => [index("enrollment_codes_project_idx").on(t.projectId, t.createdAt)],
);
