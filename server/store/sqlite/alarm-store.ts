import { randomUUID } from "node:crypto";
import { and, asc, count, desc, eq, gte, inArray, lt, lte, or, type SQL, sql } from "drizzle-orm";
import type {
  AlarmHistoryFilter,
  AlarmStore,
  RaisedAlarm,
  ReturnEvent,
  ReturnMatch,
} from "../ports/alarm-store.ts";
import type { AlarmRow, NewAlertRuleRow } from "../rows.ts";
import { alarmEvents, alarms, alertRules, projects } from "./schema/index.ts";
import type { SqliteSession } from "./session.ts";

export class SqliteAlarmStore implements AlarmStore {
  readonly #s: SqliteSession;

  constructor(session: SqliteSession) {
    this.#s = session;
  }

  rule(id: string) {
    return this.#s.gate.run(() => this.#s.db.select().from(alertRules).where(eq(alertRules.id, id)).get());
  }

  rulesOf(projectId: string) {
    return this.#s.gate.run(() =>
      this.#s.db
        .select()
        .from(alertRules)
        .where(eq(alertRules.projectId, projectId))
        .orderBy(asc(alertRules.createdAt), asc(alertRules.id))
        .all(),
    );
  }

  enabledRulesOf(projectId: string) {
    return this.#s.gate.run(() =>
      this.#s.db
        .select()
        .from(alertRules)
        .where(and(eq(alertRules.projectId, projectId), eq(alertRules.isEnabled, true)))
        .orderBy(asc(alertRules.createdAt), asc(alertRules.id))
        .all(),
    );
  }

  insertRule(row: NewAlertRuleRow) {
    return this.#s.gate.run(() => this.#s.db.insert(alertRules).values(row).returning().get());
  }

  updateRule(id: string, set: Partial<Omit<NewAlertRuleRow, "id" | "projectId">>) {
    return this.#s.gate.run(() =>
      this.#s.db.update(alertRules).set(set).where(eq(alertRules.id, id)).returning().get(),
    );
  }

  deleteRule(id: string) {
    return this.#s.gate.run(
      () => this.#s.db.delete(alertRules).where(eq(alertRules.id, id)).run().changes > 0,
    );
  }

  alarm(id: string) {
    return this.#s.gate.run(() => this.#s.db.select().from(alarms).where(eq(alarms.id, id)).get());
  }

  listed(projectId: string) {
    return this.#s.gate.run(() =>
      this.#s.db
        .select()
        .from(alarms)
        .where(
          and(eq(alarms.projectId, projectId), or(eq(alarms.active, true), eq(alarms.acknowledged, false))),
        )
        .orderBy(desc(alarms.timestamp), desc(alarms.createdAt), desc(alarms.id))
        .all(),
    );
  }

  activeServerAlarms() {
    return this.#s.gate.run(() =>
      this.#s.db
        .select({
          id: alarms.id,
          ruleId: alarms.ruleId,
          assetId: alarms.assetId,
          alarmType: alarms.alarmType,
          timestamp: alarms.timestamp,
        })
        .from(alarms)
        .where(
          and(
            // The project subquery lets SQLite use the (project_id, active, acknowledged) index.
            inArray(alarms.projectId, this.#s.db.select({ id: projects.id }).from(projects)),
            eq(alarms.active, true),
            eq(alarms.source, "server"),
          ),
        )
        .all(),
    );
  }

  activeCommLoss(projectId: string, assetId: string) {
    return this.#s.gate.run(
      () =>
        this.#s.db
          .select({ id: alarms.id })
          .from(alarms)
          .where(
            and(
              eq(alarms.projectId, projectId),
              eq(alarms.active, true),
              eq(alarms.assetId, assetId),
              eq(alarms.alarmType, "comm_loss"),
            ),
          )
          .get()?.id,
    );
  }

  raise(alarm: RaisedAlarm) {
    return this.#s.gate.run(() =>
      this.#s.db.transaction((tx) => {
        const row = tx.insert(alarms).values(alarm).returning().get();
        tx.insert(alarmEvents)
          .values({ id: randomUUID(), alarmId: row.id, event: "raised", at: row.timestamp, value: row.value })
          .run();
        return row;
      }),
    );
  }

  returnToNormal(match: ReturnMatch, event: ReturnEvent) {
    return this.#s.gate.run(() =>
      this.#s.db.transaction((tx) => {
        const rows = tx
          .update(alarms)
          .set({ active: false, returnedAt: event.at })
          .where(and(matching(match), eq(alarms.active, true)))
          .returning()
          .all()
          .sort(byRaiseOrder);
        for (const row of rows) {
          tx.insert(alarmEvents)
            .values({
              id: randomUUID(),
              alarmId: row.id,
              event: "cleared",
              at: event.at,
              value: event.value,
              userId: event.userId,
            })
            .run();
        }
        return rows;
      }),
    );
  }

  acknowledge(id: string, at: Date, userId: string) {
    return this.#s.gate.run(() =>
      this.#s.db.transaction((tx) => {
        const row = tx
          .update(alarms)
          .set({ acknowledged: true, acknowledgedAt: at, acknowledgedBy: userId })
          .where(and(eq(alarms.id, id), eq(alarms.acknowledged, false)))
          .returning()
          .get();
        if (!row) return undefined;
        tx.insert(alarmEvents)
          .values({ id: randomUUID(), alarmId: id, event: "acknowledged", at, value: null, userId })
          .run();
        return row;
      }),
    );
  }

  history(filter: AlarmHistoryFilter) {
    return this.#s.gate.run(() =>
      this.#s.db
        .select({ event: alarmEvents, alarm: alarms })
        .from(alarmEvents)
        .innerJoin(alarms, eq(alarms.id, alarmEvents.alarmId))
        .where(
          and(
            eq(alarms.projectId, filter.projectId),
            filter.from ? gte(alarmEvents.at, filter.from) : undefined,
            filter.to ? lte(alarmEvents.at, filter.to) : undefined,
            filter.assetId ? eq(alarms.assetId, filter.assetId) : undefined,
            filter.severity ? eq(alarms.severity, filter.severity) : undefined,
            filter.alarmType ? eq(alarms.alarmType, filter.alarmType) : undefined,
          ),
        )
        // rowid breaks ties between events of one instant in the order they were written.
        .orderBy(desc(alarmEvents.at), desc(sql`${alarmEvents}.rowid`))
        .limit(filter.limit)
        .all(),
    );
  }

  listedCount(projectIds?: readonly string[]) {
    return this.#s.gate.run(() => {
      if (projectIds?.length === 0) return 0;
      const row = this.#s.db
        .select({ n: count() })
        .from(alarms)
        .where(
          and(
            projectIds && inArray(alarms.projectId, [...projectIds]),
            or(eq(alarms.active, true), eq(alarms.acknowledged, false)),
          ),
        )
        .get();
      return row?.n ?? 0;
    });
  }

  raisedIn(projectId: string, from: Date, to: Date) {
    return this.#s.gate.run(() =>
      this.#s.db
        .select()
        .from(alarms)
        .where(and(eq(alarms.projectId, projectId), gte(alarms.timestamp, from), lt(alarms.timestamp, to)))
        .orderBy(asc(alarms.timestamp), asc(alarms.id))
        .all(),
    );
  }
}

function matching(match: ReturnMatch): SQL | undefined {
  if ("alarmId" in match) return eq(alarms.id, match.alarmId);
  if ("assetId" in match) return and(eq(alarms.ruleId, match.ruleId), eq(alarms.assetId, match.assetId));
  return and(eq(alarms.ruleId, match.ruleId), eq(alarms.source, match.source));
}

/** Timestamp, then created_at, then id in byte order (UTF-8, as the BINARY collation compares). */
function byRaiseOrder(a: AlarmRow, b: AlarmRow): number {
  return (
    a.timestamp.getTime() - b.timestamp.getTime() ||
    a.createdAt.getTime() - b.createdAt.getTime() ||
    Buffer.compare(Buffer.from(a.id), Buffer.from(b.id))
  );
}
