/**
 * The ANH 0651 production day: 00:00 to 24:00 of a calendar date in the project's IANA time zone.
 * Boundaries come from the runtime's time zone database (Intl), so a zone with daylight saving
 * has 23- and 25-hour days, and a day whose midnight falls in a spring-forward gap starts at the
 * first instant that shows that date.
 */
export type ProductionDay = {
  /** YYYY-MM-DD. */
  date: string;
  timezone: string;
  /** Epoch ms, inclusive. */
  startMs: number;
  /** Epoch ms, exclusive: the start of the next day. */
  endMs: number;
};

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** True for a real calendar date written YYYY-MM-DD (2025-02-30 is not). */
export function isCalendarDate(value: string): boolean {
  const m = DATE.exec(value);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const t = new Date(Date.UTC(y, mo - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === mo - 1 && t.getUTCDate() === d;
}

/** The calendar date `days` after `date` (negative: before). */
export function addDays(date: string, days: number): string {
  const m = DATE.exec(date);
  if (!m) throw new RangeError(`not a date: ${date}`);
  const t = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]) + days);
  return new Date(t).toISOString().slice(0, 10);
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timezone: string): Intl.DateTimeFormat {
  let f = formatters.get(timezone);
  if (!f) {
    // Throws RangeError for a zone the runtime does not know.
    f = new Intl.DateTimeFormat("en-US", {
      timeZone: timezone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
    });
    formatters.set(timezone, f);
  }
  return f;
}

/** The calendar date (YYYY-MM-DD) that the wall clock of `timezone` shows at `ms`. */
export function localDateOf(ms: number, timezone: string): string {
  let y = "";
  let mo = "";
  let d = "";
  for (const part of formatterFor(timezone).formatToParts(ms)) {
    if (part.type === "year") y = part.value;
    else if (part.type === "month") mo = part.value;
    else if (part.type === "day") d = part.value;
  }
  return `${y.padStart(4, "0")}-${mo}-${d}`;
}

const HOUR = 3_600_000;
const dayStarts = new Map<string, number>();

/**
 * The first instant whose local date in `timezone` is `date` or later. UTC offsets lie within
 * −12 h and +14 h, so the answer lies within [midnight UTC − 15 h, midnight UTC + 13 h]; a binary
 * search over that range finds it to the millisecond with ~27 look-ups.
 */
export function startOfLocalDay(date: string, timezone: string): number {
  const key = `${timezone} ${date}`;
  const cached = dayStarts.get(key);
  if (cached !== undefined) return cached;
  const m = DATE.exec(date);
  if (!m) throw new RangeError(`not a date: ${date}`);
  const midnightUtc = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  let lo = midnightUtc - 15 * HOUR; // local date < date
  let hi = midnightUtc + 13 * HOUR; // local date ≥ date
  while (hi - lo > 1) {
    const mid = lo + Math.floor((hi - lo) / 2);
    if (localDateOf(mid, timezone) >= date) hi = mid;
    else lo = mid;
  }
  if (dayStarts.size > 10_000) dayStarts.clear();
  dayStarts.set(key, hi);
  return hi;
}

/** The production day `date` in `timezone`. */
export function productionDay(date: string, timezone: string): ProductionDay {
  return {
    date,
    timezone,
    startMs: startOfLocalDay(date, timezone),
    endMs: startOfLocalDay(addDays(date, 1), timezone),
  };
}

/** The most recent production day that has closed at `nowMs` (yesterday, locally). */
export function lastClosedDay(nowMs: number, timezone: string): ProductionDay {
  return productionDay(addDays(localDateOf(nowMs, timezone), -1), timezone);
}

/** The UTC offset of `timezone` at `ms`, as ±HH:MM (for readers of the report). */
export function utcOffsetAt(ms: number, timezone: string): string {
  const wall = wallClockAsUtc(ms, timezone);
  const minutes = Math.round((wall - Math.floor(ms / 1000) * 1000) / 60_000);
  const sign = minutes < 0 ? "-" : "+";
  const abs = Math.abs(minutes);
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
}

const wallFormatters = new Map<string, Intl.DateTimeFormat>();

/** The local wall-clock time at `ms`, read as if it were UTC (seconds resolution). */
function wallClockAsUtc(ms: number, timezone: string): number {
  let f = wallFormatters.get(timezone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone: timezone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    wallFormatters.set(timezone, f);
  }
  const p: Record<string, number> = {};
  for (const part of f.formatToParts(ms)) if (part.type !== "literal") p[part.type] = Number(part.value);
  return Date.UTC(p.year ?? 0, (p.month ?? 1) - 1, p.day ?? 1, p.hour ?? 0, p.minute ?? 0, p.second ?? 0);
}
