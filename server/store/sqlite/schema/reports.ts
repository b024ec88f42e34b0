import { blob, index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt, id, instant } from "./columns.ts";
import { projects } from "./field.ts";
import { users } from "./identity.ts";

/** Daily ANH 0651 production report. `content` holds the canonical (RFC 8785) bytes; they never change. */
export const anhReports = sqliteTable(
  "anh_reports",
  {
    id: id(),
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    /** Production day, YYYY-MM-DD in the project's time zone. */
    reportDate: text("report_date").notNull(),
    periodStart: instant("period_start").notNull(),
    periodEnd: instant("period_end").notNull(),
    status: text("status", { enum: ["pending", "generated", "submitted"] }).notNull(),
    version: integer("version").notNull().default(1),
    supersedes: text("supersedes"),
    content: blob("content", { mode: "buffer" }),
    hashSha384: text("hash_sha384"),
    previousHashSha384: text("previous_hash_sha384"),
    generatedAt: instant("generated_at"),
    submittedAt: instant("submitted_at"),
    submittedBy: text("submitted_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("anh_reports_project_day_version_uq").on(t.projectId, t.reportDate, t.version),
    index("anh_reports_project_idx").on(t.projectId, t.reportDate),
  ],
);
