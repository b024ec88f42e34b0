import { randomUUID } from "node:crypto";
import { and, asc, count, desc, eq, getTableColumns, gte, inArray, lt, lte, or, type SQL } from "drizzle-orm";
import type {
  AlarmHistoryFilter,
  AlarmStore,
  RaisedAlarm,
  ReturnEvent,
  ReturnMatch,
} from "../ports/alarm-store.ts";
import type { AlarmRow, NewAlertRuleRow } from "../rows.ts";
import { alarmEvents, alarms, alertRules } from "./schema/index.ts";
import { atomically, type PgSession } from "./session.ts";

// An event as the port hands it: write_seq (PostgreSQL's stand-in for SQLite's rowid) stays inside.
const { writeSeq: _writeSeq, ...eventColumns } = getTableColumns(alarmEvents);

/** The one row an INSERT … RETURNING gives back. */
function inserted<T>(rows: T[], what: string): T {
  const [row] = rows;
  if (!row) throw new Error(`INSERT … RETURNING returned no ${what} row`);
  return row;
}

export class PostgresAlarmStore implements AlarmStore {
  readonly #s: PgSession;

  constructor(session: PgSession) {
    this.#s = session;
  }

  async rule(id: string) {
    const [row] = await this.#s.executor().select().from(alertRules).where(eq(alertRules.id, id)).limit(1);
    return row;
  }

  async rulesOf(projectId: string) {
    return this.#s
      .executor()
      .select()
      .from(alertRules)
      .where(eq(alertRules.projectId, projectId))
      .orderBy(asc(alertRules.createdAt), asc(alertRules.id));
  }

  async enabledRulesOf(projectId: string) {
    return this.#s
      .executor()
      .select()
      .from(alertRules)
      .where(and(eq(alertRules.projectId, projectId), eq(alertRules.isEnabled, true)))
      .orderBy(asc(alertRules.createdAt), asc(alertRules.id));
  }

  async insertRule(row: NewAlertRuleRow) {
    return inserted(await this.#s.executor().insert(alertRules).values(row).returning(), "rule");
  }

  async updateRule(id: string, set: Partial<Omit<NewAlertRuleRow, "id" | "projectId">>) {
    const [row] = await this.#s
      .executor()
      .update(alertRules)
      .set(set)
      .where(eq(alertRules.id, id))
      .returning();
    return row;
  }

  async deleteRule(id: string) {
    const gone = await this.#s
      .executor()
      .delete(alertRules)
      .where(eq(alertRules.id, id))
      .returning({ id: alertRules.id });
    return gone.length > 0;
  }

  async alarm(id: string) {
    const [row] = await this.#s.executor().select().from(alarms).where(eq(alarms.id, id)).limit(1);
    return row;
  }

  async listed(projectId: string) {
    return this.#s
      .executor()
      .select()
      .from(alarms)
      .where(
        and(eq(alarms.projectId, projectId), or(eq(alarms.active, true), eq(alarms.acknowledged, false))),
      )
      .orderBy(desc(alarms.timestamp), desc(alarms.createdAt), desc(alarms.id));
  }

  async activeServerAlarms() {
    return this.#s
      .executor()
      .select({
        id: alarms.id,
        ruleId: alarms.ruleId,
        assetId: alarms.assetId,
        alarmType: alarms.alarmType,
        timestamp: alarms.timestamp,
      })
      .from(alarms)
      .where(and(eq(alarms.active, true), eq(alarms.source, "server")));
  }

  async activeCommLoss(projectId: string, assetId: string) {
    const [row] = await this.#s
      .executor()
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
      .limit(1);
    return row?.id;
  }

  raise(alarm: RaisedAlarm) {
    return atomically(this.#s, async (tx) => {
      const row = inserted(await tx.insert(alarms).values(alarm).returning(), "alarm");
      await tx
        .insert(alarmEvents)
        .values({ id: randomUUID(), alarmId: row.id, event: "raised", at: row.timestamp, value: row.value });
      return row;
    });
  }

  returnToNormal(match: ReturnMatch, event: ReturnEvent) {
    return atomically(this.#s, async (tx) => {
      const rows = (
        await tx
          .update(alarms)
          .set({ active: false, returnedAt: event.at })
          .where(and(matching(match), eq(alarms.active, true)))
          .returning()
      ).sort(byRaiseOrder);
      if (rows.length > 0) {
        // One statement; its rows take write_seq in the order listed, the raise order.
        await tx.insert(alarmEvents).values(
          rows.map((row) => ({
            id: randomUUID(),
            alarmId: row.id,
            event: "cleared" as const,
            at: event.at,
            value: event.value,
            userId: event.userId,
          })),
        );
      }
      return rows;
    });
  }

  acknowledge(id: string, at: Date, userId: string) {
    return atomically(this.#s, async (tx) => {
      const [row] = await tx
        .update(alarms)
        .set({ acknowledged: true, acknowledgedAt: at, acknowledgedBy: userId })
        .where(and(eq(alarms.id, id), eq(alarms.acknowledged, false)))
        .returning();
      if (!row) return undefined;
      await tx
        .insert(alarmEvents)
        .values({ id: randomUUID(), alarmId: id, event: "acknowledged", at, value: null, userId });
      return row;
    });
  }

  async history(filter: AlarmHistoryFilter) {
    return (
      this.#s
        .executor()
        .select({ event: eventColumns, alarm: alarms })
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
        // write_seq breaks ties between events of one instant in the order they were written.
        .orderBy(desc(alarmEvents.at), desc(alarmEvents.writeSeq))
        .limit(filter.limit)
    );
  }

  async listedCount(projectIds?: readonly string[]) {
    if (projectIds?.length === 0) return 0;
    const [row] = await this.#s
      .executor()
      .select({ n: count() })
      .from(alarms)
      .where(
        and(
          projectIds && inArray(alarms.projectId, [...projectIds]),
          or(eq(alarms.active, true), eq(alarms.acknowledged, false)),
        ),
      );
    return row?.n ?? 0;
  }

  async raisedIn(projectId: string, from: Date, to: Date) {
    return this.#s
      .executor()
      .select()
      .from(alarms)
      .where(and(eq(alarms.projectId, projectId), gte(alarms.timestamp, from), lt(alarms.timestamp, to)))
      .orderBy(asc(alarms.timestamp), asc(alarms.id));
  }
}

function matching(match: ReturnMatch): SQL | undefined {
  if ("alarmId" in match) return eq(alarms.id, match.alarmId);
  if ("assetId" in match) return and(eq(alarms.ruleId, match.ruleId), eq(alarms.assetId, match.assetId));
  return and(eq(alarms.ruleId, match.ruleId), eq(alarms.source, match.source));
}

/** Timestamp, then created_at, then id in byte order (UTF-8, as the C collation compares). */
function byRaiseOrder(a: AlarmRow, b: AlarmRow): number {
  return (
    a.timestamp.getTime() - b.timestamp.getTime() ||
    a.createdAt.getTime() - b.createdAt.getTime() ||
    Buffer.compare(Buffer.from(a.id), Buffer.from(b.id))
  );
}
