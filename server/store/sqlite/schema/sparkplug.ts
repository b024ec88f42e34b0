import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt, id } from "./columns.ts";
import { projects } from "./field.ts";
import { users } from "./identity.ts";

/** Read-only MQTT logins for SCADA HMIs, one project each; only the password's SHA-256 is kept. */
export const mqttCredentials = sqliteTable(
  "mqtt_credentials",
  {
    id: id(),
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** `hmi:<id>`: the MQTT user name. */
    username: text("username").notNull(),
    passwordHash: text("password_hash").notNull(),
    /**
     * The Sparkplug host id whose STATE this login may publish (spBv1.0/STATE/{id}); null: none.
     * No other project names it, as its primary host or on a login (services/mqtt-credentials/host-ids.ts).
     */
    primaryHostId: text("primary_host_id"),
    createdBy: text("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("mqtt_credentials_username_uq").on(t.username),
    index("mqtt_credentials_project_idx").on(t.projectId),
    index("mqtt_credentials_primary_host_idx").on(t.primaryHostId),
  ],
);

/**
 * The Sparkplug birth/death sequence (bdSeq, 0–255) of each project's edge node, kept across
 * server restarts: it moves on each time the agent comes online again after being offline.
 */
export const sparkplugNodes = sqliteTable("sparkplug_nodes", {
  projectId: text("project_id")
    .primaryKey()
    .references(() => projects.id, { onDelete: "cascade" }),
  bdSeq: integer("bd_seq").notNull(),
});
