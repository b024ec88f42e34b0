import { and, asc, count, eq, gte, inArray, lt, or } from "drizzle-orm";
import type { AlarmStore } from "../ports/alarm-store.ts";
import { alarms } from "./schema/index.ts";
import type { SqliteSession } from "./session.ts";

export class SqliteAlarmStore implements AlarmStore {
  readonly #s: SqliteSession;

  constructor(session: SqliteSession) {
    this.#s = session;
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
