/** Alarms raised by the rules and by comm loss. */
export type AlarmStore = {
  /**
   * How many alarms of these projects GET /alarms still lists (ISA-18.2: active, or not yet
   * acknowledged). `projectIds` undefined: every project; an empty list matches nothing.
   */
  listedCount(projectIds?: readonly string[]): Promise<number>;
};
