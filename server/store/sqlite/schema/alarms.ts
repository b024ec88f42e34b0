import { index, integer, real, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { createdAt, flag, id, instant } from "./columns.ts";
import { assets, projects } from "./field.ts";
import { users } from "./identity.ts";

export const alertRules = sqliteTable(
  "alert_rules",
  {
    id: id(),
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    variableAlias: text("variable_alias").notNull(),
    condition: text("condition", { enum: ["gt", "lt", "gte", "lte", "eq"] }).notNull(),
    threshold: real("threshold").notNull(),
    severity: text("severity", { enum: ["info", "warning", "critical"] }).notNull(),
    isEnabled: flag("is_enabled").notNull().default(true),
    /** Hysteresis for returning to normal. */
    deadband: real("deadband").notNull().default(0),
    /** The condition must hold this long before the alarm is raised. */
    delaySeconds: integer("delay_seconds").notNull().default(0),
    createdAt: createdAt(),
    updatedAt: instant("updated_at").notNull(),
  },
  (t) => [index("alert_rules_project_idx").on(t.projectId)],
);

/** ISA-18.2: an alarm is listed until it has both returned to normal and been acknowledged. */
export const alarms = sqliteTable(
  "alarms",
  {
    id: id(),
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    assetId: text("asset_id").references(() => assets.id, { onDelete: "cascade" }),
    ruleId: text("rule_id").references(() => alertRules.id, { onDelete: "set null" }),
    variable: text("variable").notNull(),
    value: real("value").notNull(),
    alarmType: text("alarm_type", {
      enum: ["high", "low", "critical_high", "critical_low", "comm_loss"],
    }).notNull(),
    severity: text("severity", { enum: ["info", "warning", "critical"] }).notNull(),
    message: text("message").notNull(),
    /** Raised at (the reading's time). */
    timestamp: instant("timestamp").notNull(),
    active: flag("active").notNull().default(true),
    returnedAt: instant("returned_at"),
    acknowledged: flag("acknowledged").notNull().default(false),
    acknowledgedAt: instant("acknowledged_at"),
    acknowledgedBy: text("acknowledged_by").references(() => users.id, { onDelete: "set null" }),
    /** Where it was raised: the server's evaluator or an agent's. */
    source: text("source", { enum: ["server", "agent"] })
      .notNull()
      .default("server"),
    createdAt: createdAt(),
  },
  (t) => [
    index("alarms_project_open_idx").on(t.projectId, t.active, t.acknowledged),
    index("alarms_rule_idx").on(t.ruleId),
  ],
);

/** Every raise, return to normal and acknowledgement, never deleted by clearing. */
export const alarmEvents = sqliteTable(
  "alarm_events",
  {
    id: id(),
    alarmId: text("alarm_id")
      .notNull()
      .references(() => alarms.id, { onDelete: "cascade" }),
    event: text("event", { enum: ["raised", "cleared", "acknowledged"] }).notNull(),
    at: instant("at").notNull(),
    value: real("value"),
    userId: text("user_id").references(() => users.id, { onDelete: "set null" }),
  },
  (t) => [index("alarm_events_alarm_idx").on(t.alarmId)],
);
