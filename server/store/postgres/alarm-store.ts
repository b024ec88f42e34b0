import { and, count, eq, inArray, or } from "drizzle-orm";
import type { AlarmStore } from "../ports/alarm-store.ts";
import { alarms } from "./schema/index.ts";
import type { PgSession } from "./session.ts";

export class PostgresAlarmStore implements AlarmStore {
  readonly #s: PgSession;

  constructor(session: PgSession) {
    this.#s = session;
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
}
