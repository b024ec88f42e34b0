import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { instant } from "./columns.ts";

/** Append-only, hash-chained (API MPMS 21.1 configuration and event log). */
export const auditLog = sqliteTable(
  "audit_log",
  {
    seq: integer("seq").primaryKey({ autoIncrement: true }),
    id: text("id").notNull().unique(),
    at: instant("at").notNull(),
    userId: text("user_id"),
    projectId: text("project_id"),
    entity: text("entity").notNull(),
    entityId: text("entity_id").notNull(),
    action: text("action", { enum: ["create", "update", "delete"] }).notNull(),
    before: text("before", { mode: "json" }),
    after: text("after", { mode: "json" }),
    /** SHA-256 hex of the previous entry ("" for the first). */
    prevHash: text("prev_hash").notNull(),
    hash: text("hash").notNull(),
  },
  (t) => [index("audit_log_project_at_idx").on(t.projectId, t.at)],
);
