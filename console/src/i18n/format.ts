/**
 * Dates and numbers in the user's locale and the project's time zone. Intl formatters are costly
 * to build, so each is made once per locale, zone and style and kept.
 */
export class Formats {
  readonly locale: string;
  readonly #cache = new Map<string, Intl.NumberFormat | Intl.DateTimeFormat | Intl.RelativeTimeFormat>();

  constructor(locale: string) {
    this.locale = locale;
  }

  #get<T extends Intl.NumberFormat | Intl.DateTimeFormat | Intl.RelativeTimeFormat>(
    key: string,
    make: () => T,
  ): T {
    let f = this.#cache.get(key);
    if (!f) {
      f = make();
      this.#cache.set(key, f);
    }
    return f as T;
  }

  number(value: number, maxFractionDigits = 3): string {
    return this.#get(
      `n${maxFractionDigits}`,
      () => new Intl.NumberFormat(this.locale, { maximumFractionDigits: maxFractionDigits }),
    ).format(value);
  }

  percent(value: number): string {
    return this.#get(
      "pct",
      () => new Intl.NumberFormat(this.locale, { style: "percent", maximumFractionDigits: 1 }),
    ).format(value);
  }

  /** US dollars, as billing states amounts (two decimals). */
  usd(value: number): string {
    return this.#get(
      "usd",
      () => new Intl.NumberFormat(this.locale, { style: "currency", currency: "USD" }),
    ).format(value);
  }

  /** Date and time in `timeZone` (an IANA zone such as America/Bogota). */
  dateTime(instant: number | string, timeZone: string): string {
    const ms = typeof instant === "string" ? Date.parse(instant) : instant;
    return this.#get(
      `dt${timeZone}`,
      () => new Intl.DateTimeFormat(this.locale, { dateStyle: "short", timeStyle: "medium", timeZone }),
    ).format(ms);
  }

  /** "hace 12 s" / "12 sec. ago": how long ago, in the largest fitting unit. */
  age(ms: number): string {
    const rtf = this.#get(
      "rel",
      () => new Intl.RelativeTimeFormat(this.locale, { numeric: "always", style: "short" }),
    );
    const s = Math.max(0, Math.round(ms / 1000));
    if (s < 60) return rtf.format(-s, "second");
    if (s < 3600) return rtf.format(-Math.floor(s / 60), "minute");
    if (s < 86_400) return rtf.format(-Math.floor(s / 3600), "hour");
    return rtf.format(-Math.floor(s / 86_400), "day");
  }
}

/** The UTC instant of a wall-clock time (`YYYY-MM-DDTHH:mm`, as a datetime-local input gives) in `timeZone`. */
export function zonedToUtc(local: string, timeZone: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(local);
  if (!m) return Number.NaN;
  const [, y, mo, d, h, mi, s] = m.map(Number) as number[];
  const asUtc = Date.UTC(y ?? 0, (mo ?? 1) - 1, d ?? 1, h ?? 0, mi ?? 0, s || 0);
  // Two passes: the zone's offset at the guess, then at the corrected instant (DST edges).
  let guess = asUtc - offsetMs(asUtc, timeZone);
  guess = asUtc - offsetMs(guess, timeZone);
  return guess;
}

/** The wall-clock time of `ms` in `timeZone`, as a datetime-local input takes it. */
export function utcToZoned(ms: number, timeZone: string): string {
  const shifted = new Date(ms + offsetMs(ms, timeZone));
  return shifted.toISOString().slice(0, 16);
}

const offsetFormats = new Map<string, Intl.DateTimeFormat>();

/** The zone's offset from UTC at `ms`, in milliseconds. */
export function offsetMs(ms: number, timeZone: string): number {
  let f = offsetFormats.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    offsetFormats.set(timeZone, f);
  }
  const parts: Record<string, number> = {};
  for (const p of f.formatToParts(ms)) if (p.type !== "literal") parts[p.type] = Number(p.value);
  const wall = Date.UTC(
    parts.year ?? 0,
    (parts.month ?? 1) - 1,
    parts.day ?? 1,
    parts.hour ?? 0,
    parts.minute ?? 0,
    parts.second ?? 0,
  );
  return wall - (ms - (ms % 1000));
}
