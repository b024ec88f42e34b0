import { sql } from "drizzle-orm";
import { boolean, check, index, pgTable, text } from "drizzle-orm/pg-core";
import { instant, int, jsonText } from "./columns.ts";

/**
 * Append-only, hash-chained (API MPMS 21.1 configuration and event log). `seq` is given by the
 * writer and must follow the last seq issued by one (migration 0004): a gap means a removal, as
 * on SQLite, where AUTOINCREMENT never spends a seq on a rolled-back insert.
 */
export const auditLog = pgTable(
  "audit_log",
  {
    seq: int("seq").primaryKey(),
    id: text("id").notNull().unique(),
    at: instant("at").notNull(),
    userId: text("user_id"),
    projectId: text("project_id"),
    entity: text("entity").notNull(),
    entityId: text("entity_id").notNull(),
    action: text("action", { enum: ["create", "update", "delete"] }).notNull(),
    before: jsonText("before"),
    after: jsonText("after"),
    /** SHA-256 hex of the previous entry ("" for the first). */
    prevHash: text("prev_hash").notNull(),
    hash: text("hash").notNull(),
  },
  (t) => [index("audit_log_project_at_idx").on(t.projectId, t.at)],
);

/**
 * PostgreSQL only: the highest audit seq ever issued, one row, advanced by the insert trigger in
 * the appending transaction (SQLite's sqlite_sequence row for audit_log). An appender locks it
 * (SELECT … FOR UPDATE) before reading the previous hash, which serialises appends.
 */
export const auditLogHead = pgTable(
  "audit_log_head",
  {
    one: boolean("one").primaryKey().default(true),
    seq: int("seq").notNull(),
  },
  (t) => [check("audit_log_head_one_row", sql`${t.one}`)],
);
