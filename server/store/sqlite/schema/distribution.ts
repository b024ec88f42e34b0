import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { enrollmentCodes } from "./agents.ts";
import { createdAt, flag, id, instant } from "./columns.ts";
import { projects } from "./field.ts";
import { users } from "./identity.ts";

export const installerBuildStatuses = ["queued", "running", "succeeded", "failed"] as const;

/**
 * The Windows MSI builds of a project (issue 10 §3): a queue worked off the request path, and the
 * cache of built installers. Each MSI carries its own enrollment code.
 */
export const installerBuilds = sqliteTable(
  "installer_builds",
  {
    id: id(),
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    status: text("status", { enum: installerBuildStatuses }).notNull(),
    /** Requested through …/rebuild: the cache was not consulted. */
    rebuild: flag("rebuild").notNull(),
    /** The server URL the installed agent enrolls at. */
    serverUrl: text("server_url").notNull(),
    /** The cache key: the agent version and the SHA-256 of everything the MSI is made from. */
    agentVersion: text("agent_version"),
    inputsSha256: text("inputs_sha256"),
    enrollmentCodeId: text("enrollment_code_id").references(() => enrollmentCodes.id, {
      onDelete: "set null",
    }),
    /** The MSI under DATA_DIR/installers; null until built, and again once a newer build replaced it. */
    file: text("file"),
    bytes: integer("bytes"),
    sha256: text("sha256"),
    log: text("log").notNull().default(""),
    requestedBy: text("requested_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    startedAt: instant("started_at"),
    finishedAt: instant("finished_at"),
  },
  (t) => [
    index("installer_builds_project_idx").on(t.projectId, t.createdAt),
    // One build at a time per project, whatever races the requests run.
    uniqueIndex("installer_builds_one_active_uq").on(t.projectId).where(sql`status in ('queued', 'running')`),
    index("installer_builds_status_idx").on(t.status, t.createdAt),
  ],
);
