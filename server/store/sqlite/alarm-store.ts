import { and, count, eq, inArray, or } from "drizzle-orm";
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
}
