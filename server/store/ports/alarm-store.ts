import type { AlarmEventRow, AlarmRow, AlertRuleRow, NewAlarmRow, NewAlertRuleRow } from "../rows.ts";

/** An alarm as raised: active, not yet acknowledged, its other columns chosen by the caller. */
export type RaisedAlarm = Omit<
  NewAlarmRow,
  "active" | "returnedAt" | "acknowledged" | "acknowledgedAt" | "acknowledgedBy"
>;

/** Which active alarms return to normal. */
export type ReturnMatch =
  /** That one alarm. */
  | { alarmId: string }
  /** The rule's alarms on that asset, whoever raised them. */
  | { ruleId: string; assetId: string }
  /** The rule's alarms of one source, on every asset. */
  | { ruleId: string; source: AlarmRow["source"] };

/** The "cleared" history event of a return to normal. */
export type ReturnEvent = {
  at: Date;
  /** The reading that returned it (or, for comm_loss, the silence in seconds); null otherwise. */
  value: number | null;
  /** Who caused it (a rule change); null when readings did. */
  userId: string | null;
};

/** Which history events to list; every condition given must hold. */
export type AlarmHistoryFilter = {
  projectId: string;
  /** On the event's `at`, both inclusive. */
  from?: Date | undefined;
  to?: Date | undefined;
  /** Conditions on the event's alarm. */
  assetId?: string | undefined;
  severity?: AlarmRow["severity"] | undefined;
  alarmType?: AlarmRow["alarmType"] | undefined;
  limit: number;
};

/** A history event with the alarm it belongs to. */
export type AlarmHistoryRow = { event: AlarmEventRow; alarm: AlarmRow };

/** What the alarm engine needs of an active alarm at start-up. */
export type OpenAlarm = Pick<AlarmRow, "id" | "ruleId" | "assetId" | "alarmType" | "timestamp">;

/**
 * Alert rules, alarms and their history (ISA-18.2 life cycle). Alarms are never deleted here: a
 * return to normal and an acknowledgement update the alarm and add a history event (alarm_events),
 * which nothing but the deletion of the alarm's project or asset removes (the foreign keys cascade).
 *
 * Methods that write more than one row (raise, returnToNormal, acknowledge) are atomic on their
 * own; inside `Store.transaction` they join it. Each history event gets a fresh random UUID.
 * Ids compare in byte order (SQLite's BINARY collation; on PostgreSQL `COLLATE "C"`).
 */
export type AlarmStore = {
  /** The rule; undefined when there is no such rule. */
  rule(id: string): Promise<AlertRuleRow | undefined>;
  /** The project's rules, enabled or not, by created_at then id. */
  rulesOf(projectId: string): Promise<AlertRuleRow[]>;
  /** The project's enabled rules, by created_at then id (the order the engine evaluates them in). */
  enabledRulesOf(projectId: string): Promise<AlertRuleRow[]>;
  insertRule(row: NewAlertRuleRow): Promise<AlertRuleRow>;
  /** The updated row; undefined when there is no such rule. A rule never changes project. */
  updateRule(
    id: string,
    set: Partial<Omit<NewAlertRuleRow, "id" | "projectId">>,
  ): Promise<AlertRuleRow | undefined>;
  /**
   * Removes the rule. Its alarms and their history stay, with rule_id set to null (the foreign
   * key). False when there was no such rule.
   */
  deleteRule(id: string): Promise<boolean>;

  /** The alarm; undefined when there is no such alarm. */
  alarm(id: string): Promise<AlarmRow | undefined>;
  /**
   * The project's alarms still listed (ISA-18.2: active, or not yet acknowledged), newest first:
   * by timestamp descending, then created_at descending, then id descending.
   */
  listed(projectId: string): Promise<AlarmRow[]>;
  /** Every active alarm the server raised (source "server"), in no particular order. */
  activeServerAlarms(): Promise<OpenAlarm[]>;
  /** The id of the asset's active comm_loss alarm (there is at most one); undefined when none. */
  activeCommLoss(projectId: string, assetId: string): Promise<string | undefined>;
  /**
   * Inserts `alarm` (active, unacknowledged) and its "raised" history event at `alarm.timestamp`
   * with `alarm.value` and no user; returns the alarm as stored.
   */
  raise(alarm: RaisedAlarm): Promise<AlarmRow>;
  /**
   * Returns the active alarms that `match` selects to normal (active false, returned_at
   * `event.at`) and adds a "cleared" history event for each. Returns them as they now are, ordered
   * by timestamp, then created_at, then id: the order their events were written in. None when no
   * active alarm matches.
   */
  returnToNormal(match: ReturnMatch, event: ReturnEvent): Promise<AlarmRow[]>;
  /**
   * Acknowledges the alarm (acknowledged_at `at`, acknowledged_by `userId`) and adds an
   * "acknowledged" history event with no value; returns it as it now is. Undefined, writing
   * nothing, when there is no such alarm or it was acknowledged already (the first stays).
   */
  acknowledge(id: string, at: Date, userId: string): Promise<AlarmRow | undefined>;
  /**
   * History events of the project's alarms that match `filter`, newest first: by `at`
   * descending, then in reverse write order (events of one instant, the last written first:
   * rowid on SQLite, write_seq on PostgreSQL); the first `filter.limit` of them.
   */
  history(filter: AlarmHistoryFilter): Promise<AlarmHistoryRow[]>;
  /**
   * How many alarms of these projects GET /alarms still lists (ISA-18.2: active, or not yet
   * acknowledged). `projectIds` undefined: every project; an empty list matches nothing.
   */
  listedCount(projectIds?: readonly string[]): Promise<number>;
  /**
   * The project's alarms raised (their `timestamp`) in [from, to), whatever their state now: by
   * `timestamp` ascending, then id ascending in byte order (SQLite's BINARY collation; on
   * PostgreSQL `COLLATE "C"`).
   */
  raisedIn(projectId: string, from: Date, to: Date): Promise<AlarmRow[]>;
};
