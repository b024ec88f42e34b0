/**
 * Report by exception: a value is recorded when it moved by more than the variable's deadband
 * since the last recorded value, or when HEARTBEAT_MS passed without one (so a flat line still
 * shows the link is alive and history has no false gaps).
 */
export const HEARTBEAT_MS = 60_000;

export class ExceptionFilter {
  readonly #last = new Map<string, { value: number; ts: number }>();

  accept(variableId: string, value: number, deadband: number, ts: number): boolean {
    const last = this.#last.get(variableId);
    if (!last) {
      this.#last.set(variableId, { value, ts });
      return true;
    }
    if (Math.abs(value - last.value) <= deadband && ts - last.ts < HEARTBEAT_MS) return false;
    // Updated in place: one record per variable, not one per recorded value.
    last.value = value;
    last.ts = ts;
    return true;
  }

  /** Forget variables that are no longer configured. */
  retain(variableIds: ReadonlySet<string>): void {
    for (const id of this.#last.keys()) if (!variableIds.has(id)) this.#last.delete(id);
  }
}
