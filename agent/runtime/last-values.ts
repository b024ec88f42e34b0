/** One variable's newest reading as the local API shows it (GET /status, `last_values`). */
export type LastValue = {
  alias: string;
  device_id: string;
  value: number | null;
  quality: string;
  detail?: string;
  unit?: string;
  ts: string;
};

type Reading = {
  alias: string;
  deviceId: string;
  value: number | null;
  quality: string;
  detail: string | undefined;
  unit: string | null;
  ts: number;
};

/**
 * The newest reading of every polled variable. Each variable keeps one record, updated in place
 * on every poll, and its time is formatted only when shown: at 10,000 tags a new object and ISO
 * string per reading would make 10,000 of each per second for the garbage collector.
 */
export class LastValues {
  readonly #byId = new Map<string, Reading>();

  /** Records `reading` (a driver's result, kept by reference nowhere) as the newest of `variable`. */
  set(
    variable: { id: string; alias: string; unit?: string | null },
    deviceId: string,
    reading: { value: number | null; quality: string; detail?: string },
    ts: number,
  ): void {
    const r = this.#byId.get(variable.id);
    if (!r) {
      this.#byId.set(variable.id, {
        alias: variable.alias,
        deviceId,
        value: reading.value,
        quality: reading.quality,
        detail: reading.detail,
        unit: variable.unit ?? null,
        ts,
      });
      return;
    }
    r.alias = variable.alias;
    r.unit = variable.unit ?? null;
    r.deviceId = deviceId;
    r.value = reading.value;
    r.quality = reading.quality;
    r.detail = reading.detail;
    r.ts = ts;
  }

  /** Forget variables that are no longer configured. */
  retain(variableIds: ReadonlySet<string>): void {
    for (const id of this.#byId.keys()) if (!variableIds.has(id)) this.#byId.delete(id);
  }

  list(): LastValue[] {
    return Array.from(this.#byId.values(), (r) => ({
      alias: r.alias,
      device_id: r.deviceId,
      value: r.value,
      quality: r.quality,
      ...(r.detail ? { detail: r.detail } : {}),
      ...(r.unit ? { unit: r.unit } : {}),
      ts: new Date(r.ts).toISOString(),
    }));
  }
}
