import type { AlarmRow } from "../rows.ts";

/** Alarms raised by the rules and by comm loss. */
export type AlarmStore = {
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
